/**
 * Limits the sandbox enforces where the reference states none and the client checks nothing
 * (unless a pipeline's `limits:` asks it to): image sizes, how many images a request may ask for,
 * the voices of each TTS model. The sandbox's own choices (docs/sandbox.md, "The choices it
 * makes"), so they live here and not in the catalogue the client ships with.
 */

export interface DimensionLimit {
  readonly min: number;
  readonly max: number;
  readonly multipleOf: number;
}

/** Width and height of generated images, for most models. */
export const GENERATE_DIMENSIONS: DimensionLimit = { min: 256, max: 2048, multipleOf: 64 };

/** theta-pro-ultra ("up to 8K output"); also the largest side an upscale may produce. */
export const ULTRA_DIMENSIONS: DimensionLimit = { min: 256, max: 8192, multipleOf: 64 };

/** Width and height when a request leaves them out ("default 1024 for most models"). */
export const DEFAULT_DIMENSION = 1024;

/** The most images one generate request may ask for. */
export const NUM_IMAGES_MAX = 4;

/** The voice IDs of each TTS model (the reference lists none), its default first. */
export const TTS_VOICES: Readonly<Record<string, readonly string[]>> = {
  'tts-alpha': ['alloy', 'breeze', 'cedar'],
  'beta-tts': ['aurora', 'basalt'],
};
