/**
 * Every model ID of the reference with its published credit price, exactly as stated there.
 * `credits: null` means the reference publishes no fixed price (iota-2, iota-2-edit: "varies").
 */
import type { Operation } from './operation-names.js';

export const ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

export const RESOLUTIONS = ['1k', '2k', '4k'] as const;
export const QUALITIES = ['low', 'medium', 'high'] as const;

export const VIDEO_MODES = ['text-to-video', 'image-to-video'] as const;
export type VideoMode = (typeof VIDEO_MODES)[number];

/** Allowed clip lengths: a list of values, or every whole second in a range ("4 to 12"). */
export type DurationRule =
  | { readonly kind: 'list'; readonly values: readonly number[] }
  | { readonly kind: 'range'; readonly min: number; readonly max: number };

export interface ModelBase {
  readonly id: string;
  readonly operation: Operation;
  /** Credits per image (generate), per edit, per clip (video) or per request (tts); null: not published. */
  readonly credits: number | null;
  readonly note?: string;
}

export interface ImageModel extends ModelBase {
  readonly operation: 'generate' | 'edit';
  /** Accepts `resolution` and `quality` (the reference allows them only on iota-2 and iota-2-edit). */
  readonly resolutionAndQuality: boolean;
}

export interface VideoModel extends ModelBase {
  readonly operation: 'video';
  readonly mode: VideoMode;
  readonly durations: DurationRule;
  /** null: the reference does not list them (image-to-video models). First entry: our guess of the default. */
  readonly aspectRatios: readonly AspectRatio[] | null;
}

export interface TtsModel extends ModelBase {
  readonly operation: 'tts';
}

export type Model = ImageModel | VideoModel | TtsModel;

const list = (...values: number[]): DurationRule => ({ kind: 'list', values });
const range = (min: number, max: number): DurationRule => ({ kind: 'range', min, max });
const WIDE: readonly AspectRatio[] = ['16:9', '9:16'];
const ALL_RATIOS: readonly AspectRatio[] = ['16:9', '9:16', '1:1'];

export const GENERATE_MODELS: readonly ImageModel[] = [
  { id: 'z-image-turbo', operation: 'generate', credits: 100, note: 'fast, low cost', resolutionAndQuality: false },
  { id: 'lambda-light', operation: 'generate', credits: 240, note: 'balanced', resolutionAndQuality: false },
  { id: 'kappa-2-pro', operation: 'generate', credits: 250, note: 'high quality', resolutionAndQuality: false },
  { id: 'eta-v4', operation: 'generate', credits: 200, resolutionAndQuality: false },
  { id: 'eta-v4.5', operation: 'generate', credits: 800, note: 'higher fidelity', resolutionAndQuality: false },
  { id: 'theta-pro', operation: 'generate', credits: 800, note: 'fine detail', resolutionAndQuality: false },
  { id: 'theta-pro-ultra', operation: 'generate', credits: 1000, note: 'up to 8K output', resolutionAndQuality: false },
  {
    id: 'iota-2',
    operation: 'generate',
    credits: null,
    note: 'dynamic by resolution and quality',
    resolutionAndQuality: true,
  },
];

export const EDIT_MODELS: readonly ImageModel[] = [
  { id: 'theta-edit', operation: 'edit', credits: 240, resolutionAndQuality: false },
  { id: 'eta-edit', operation: 'edit', credits: 200, resolutionAndQuality: false },
  { id: 'theta-pro-edit', operation: 'edit', credits: 800, resolutionAndQuality: false },
  { id: 'eta-v4.5-edit', operation: 'edit', credits: 800, resolutionAndQuality: false },
  { id: 'theta-pro-edit-ultra', operation: 'edit', credits: 1000, resolutionAndQuality: false },
  {
    id: 'iota-2-edit',
    operation: 'edit',
    credits: null,
    note: 'varies by resolution and quality',
    resolutionAndQuality: true,
  },
];

export const VIDEO_MODELS: readonly VideoModel[] = [
  {
    id: 'gamma3.1',
    operation: 'video',
    mode: 'text-to-video',
    credits: 3000,
    durations: list(4, 6, 8),
    aspectRatios: WIDE,
  },
  {
    id: 'gamma3-fast',
    operation: 'video',
    mode: 'text-to-video',
    credits: 2000,
    durations: list(4, 6, 8),
    aspectRatios: WIDE,
  },
  {
    id: 'delta-2',
    operation: 'video',
    mode: 'text-to-video',
    credits: 3500,
    durations: list(4, 8, 12),
    aspectRatios: WIDE,
  },
  {
    id: 'delta-2-pro',
    operation: 'video',
    mode: 'text-to-video',
    credits: 6000,
    durations: list(4, 8, 12),
    aspectRatios: WIDE,
  },
  {
    id: 'beta-v2.5-turbo-pro',
    operation: 'video',
    mode: 'text-to-video',
    credits: 1500,
    durations: list(5, 10),
    aspectRatios: ALL_RATIOS,
  },
  {
    id: 'beta-v2.6-pro',
    operation: 'video',
    mode: 'text-to-video',
    credits: 5500,
    durations: list(5, 10, 16),
    aspectRatios: ALL_RATIOS,
  },
  {
    id: 'epsilon-2.5',
    operation: 'video',
    mode: 'text-to-video',
    credits: 3500,
    durations: list(5, 10),
    aspectRatios: ALL_RATIOS,
  },
  {
    id: 'zeta-v1.5-pro-t2v',
    operation: 'video',
    mode: 'text-to-video',
    credits: 2600,
    durations: range(4, 12),
    aspectRatios: ALL_RATIOS,
  },
  {
    id: 'gamma3.1-i2v',
    operation: 'video',
    mode: 'image-to-video',
    credits: 3500,
    durations: list(4, 6, 8),
    aspectRatios: null,
  },
  {
    id: 'gamma3-fast-i2v',
    operation: 'video',
    mode: 'image-to-video',
    credits: 2000,
    durations: list(4, 6, 8),
    aspectRatios: null,
  },
  {
    id: 'beta-v2.5-turbo-pro-i2v',
    operation: 'video',
    mode: 'image-to-video',
    credits: 1500,
    durations: list(5, 10),
    aspectRatios: null,
  },
  {
    id: 'epsilon-2.5-i2v',
    operation: 'video',
    mode: 'image-to-video',
    credits: 1500,
    durations: range(5, 10),
    aspectRatios: null,
  },
  {
    id: 'zeta-v1.5-pro-i2v',
    operation: 'video',
    mode: 'image-to-video',
    credits: 1500,
    durations: range(4, 12),
    aspectRatios: null,
  },
];

export const TTS_MODELS: readonly TtsModel[] = [
  { id: 'tts-alpha', operation: 'tts', credits: 10, note: 'default' },
  { id: 'beta-tts', operation: 'tts', credits: 100 },
];

export const DEFAULT_TTS_MODEL = 'tts-alpha';

/** Upscale costs the same for any scale factor. */
export const UPSCALE_CREDITS = 100;

export const ALL_MODELS: readonly Model[] = [...GENERATE_MODELS, ...EDIT_MODELS, ...VIDEO_MODELS, ...TTS_MODELS];

const MODELS_BY_ID: ReadonlyMap<string, Model> = new Map(ALL_MODELS.map((model) => [model.id, model]));

export function findModel(id: string): Model | undefined {
  return MODELS_BY_ID.get(id);
}

/** The models an operation accepts; upscale and remove-bg take none. */
export function modelsFor(operation: Operation): readonly Model[] {
  return ALL_MODELS.filter((model) => model.operation === operation);
}

export function allowsDuration(rule: DurationRule, seconds: number): boolean {
  if (!Number.isInteger(seconds)) return false;
  return rule.kind === 'list' ? rule.values.includes(seconds) : seconds >= rule.min && seconds <= rule.max;
}

export function describeDurations(rule: DurationRule): string {
  return rule.kind === 'list' ? rule.values.join(', ') : `${rule.min} to ${rule.max}`;
}
