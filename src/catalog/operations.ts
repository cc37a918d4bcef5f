import { ASPECT_RATIOS, QUALITIES, RESOLUTIONS, VIDEO_MODES } from './models.js';
import type { Operation } from './operation-names.js';

/**
 * The six operations of the Creative Media Generation API, their endpoints, and the request
 * fields a pipeline step may set for each. Field kinds drive the pipeline schema, the coercion of
 * rendered template values and the rules, so a field is described here once.
 */

export { OPERATIONS, type Operation } from './operation-names.js';

/** What a finished step gives back: the kind decides which later fields may consume it. */
export type OutputMedia = 'image' | 'video' | 'audio';

/**
 * `text`: free text with a length limit; `string`: a short value checked by a rule (model,
 * mode, ratio...); `int` / `number`: numeric, may also be a whole-value template; `image`: an
 * https URL, a data URI, a local file, or the output of an earlier step.
 */
export type FieldKind = 'text' | 'string' | 'int' | 'number' | 'image';

export interface FieldSpec {
  readonly kind: FieldKind;
  /** The values the reference lists for the field (models come from the model tables). */
  readonly values?: readonly string[];
  /** Required by the reference (after `defaults:` are merged in). */
  readonly required?: boolean;
  readonly description: string;
}

export interface OperationSpec {
  readonly operation: Operation;
  readonly path: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly output: OutputMedia;
  /** Whether the step may ask for several results (`num_images`). */
  readonly multipleOutputs: boolean;
}

export const OPERATION_SPECS: Readonly<Record<Operation, OperationSpec>> = {
  generate: {
    operation: 'generate',
    path: '/v1/generate',
    output: 'image',
    multipleOutputs: true,
    fields: {
      prompt: { kind: 'text', required: true, description: 'Text description of the image.' },
      model: { kind: 'string', required: true, description: 'Image generation model ID.' },
      width: { kind: 'int', description: 'Width in pixels (accepted values depend on the model).' },
      height: { kind: 'int', description: 'Height in pixels (accepted values depend on the model).' },
      num_images: { kind: 'int', description: 'Images to generate; each costs the full model price. Default 1.' },
      resolution: { kind: 'string', values: RESOLUTIONS, description: '1k, 2k or 4k; only with iota-2.' },
      quality: { kind: 'string', values: QUALITIES, description: 'low, medium or high; only with iota-2.' },
    },
  },
  edit: {
    operation: 'edit',
    path: '/v1/edit',
    output: 'image',
    multipleOutputs: false,
    fields: {
      prompt: { kind: 'text', required: true, description: 'Editing instructions.' },
      image: {
        kind: 'image',
        required: true,
        description: 'Source image: https URL, data URI, local file or an earlier step output.',
      },
      model: { kind: 'string', required: true, description: 'Edit model ID.' },
      resolution: { kind: 'string', values: RESOLUTIONS, description: '1k, 2k or 4k; only with iota-2-edit.' },
      quality: { kind: 'string', values: QUALITIES, description: 'low, medium or high; only with iota-2-edit.' },
    },
  },
  video: {
    operation: 'video',
    path: '/v1/video',
    output: 'video',
    multipleOutputs: false,
    fields: {
      prompt: { kind: 'text', required: true, description: 'Scene, motion, style, camera movement.' },
      model: { kind: 'string', required: true, description: 'Text-to-video or image-to-video model ID.' },
      mode: {
        kind: 'string',
        values: VIDEO_MODES,
        description: 'text-to-video or image-to-video; inferred from image when absent.',
      },
      image: { kind: 'image', description: 'Start image, required for image-to-video.' },
      aspect_ratio: {
        kind: 'string',
        values: ASPECT_RATIOS,
        description: '16:9, 9:16 or 1:1; unsupported ratios fall back to the model default.',
      },
      duration: { kind: 'int', description: 'Clip length in seconds; allowed values depend on the model.' },
    },
  },
  tts: {
    operation: 'tts',
    path: '/v1/tts',
    output: 'audio',
    multipleOutputs: false,
    fields: {
      text: { kind: 'text', required: true, description: 'Plain text to speak (no HTML, no SSML).' },
      model: { kind: 'string', description: 'tts-alpha (default) or beta-tts.' },
      voice_id: { kind: 'string', description: "Voice ID; the model's default voice when omitted." },
    },
  },
  upscale: {
    operation: 'upscale',
    path: '/v1/upscale',
    output: 'image',
    multipleOutputs: false,
    fields: {
      image: { kind: 'image', required: true, description: 'Image to enlarge.' },
      scale: { kind: 'number', description: 'Multiplier of the original dimensions, e.g. 2 or 4. Default 2.' },
    },
  },
  'remove-bg': {
    operation: 'remove-bg',
    path: '/v1/remove-bg',
    output: 'image',
    multipleOutputs: false,
    fields: {
      image: {
        kind: 'image',
        required: true,
        description: 'Image whose background is removed (result: transparent PNG).',
      },
    },
  },
};
