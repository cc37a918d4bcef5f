/**
 * The typed parameters of one call, per operation, with the catalogue's defaults applied (one
 * image, tts-alpha, scale 2, the video mode inferred from the image). This is what the API client
 * turns into a request body.
 */
import { DEFAULT_TTS_MODEL, type VideoMode } from '../../catalog/models.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import type { Operation } from '../../catalog/operations.js';
import type { Params } from '../rules/step-rule.js';
import { effectiveMode } from '../rules/video-rules.js';
import type { ImageInput } from './image-input.js';

export interface GenerateParams {
  readonly prompt: string;
  readonly model: string;
  readonly width?: number;
  readonly height?: number;
  readonly num_images: number;
  readonly resolution?: string;
  readonly quality?: string;
}

export interface EditParams {
  readonly prompt: string;
  readonly image: ImageInput;
  readonly model: string;
  readonly resolution?: string;
  readonly quality?: string;
}

export interface VideoParams {
  readonly prompt: string;
  readonly model: string;
  readonly mode: VideoMode;
  readonly image?: ImageInput;
  readonly aspect_ratio?: string;
  readonly duration?: number;
}

export interface TtsParams {
  readonly text: string;
  readonly model: string;
  readonly voice_id?: string;
}

export interface UpscaleParams {
  readonly image: ImageInput;
  readonly scale: number;
}

export interface RemoveBgParams {
  readonly image: ImageInput;
}

export type OperationCall =
  | { readonly operation: 'generate'; readonly params: GenerateParams }
  | { readonly operation: 'edit'; readonly params: EditParams }
  | { readonly operation: 'video'; readonly params: VideoParams }
  | { readonly operation: 'tts'; readonly params: TtsParams }
  | { readonly operation: 'upscale'; readonly params: UpscaleParams }
  | { readonly operation: 'remove-bg'; readonly params: RemoveBgParams };

/** Copy the fields that are set; optional parameters stay absent rather than undefined. */
function pick<T extends object>(base: T, values: Params, fields: readonly string[]): T {
  const out = base as Record<string, unknown>;
  for (const field of fields) if (values[field] !== undefined) out[field] = values[field];
  return base;
}

/** Build the call from values that passed validation (required fields are known to be there). */
export function operationCall(operation: Operation, values: Params): OperationCall {
  const image = values.image as ImageInput;
  switch (operation) {
    case 'generate':
      return {
        operation,
        params: pick(
          {
            prompt: values.prompt as string,
            model: values.model as string,
            num_images: (values.num_images as number | undefined) ?? 1,
          },
          values,
          ['width', 'height', 'resolution', 'quality'],
        ),
      };
    case 'edit':
      return {
        operation,
        params: pick({ prompt: values.prompt as string, image, model: values.model as string }, values, [
          'resolution',
          'quality',
        ]),
      };
    case 'video':
      return {
        operation,
        params: pick(
          { prompt: values.prompt as string, model: values.model as string, mode: effectiveMode(values) },
          values,
          ['image', 'aspect_ratio', 'duration'],
        ),
      };
    case 'tts':
      return {
        operation,
        params: pick(
          { text: values.text as string, model: (values.model as string | undefined) ?? DEFAULT_TTS_MODEL },
          values,
          ['voice_id'],
        ),
      };
    case 'upscale':
      return {
        operation,
        params: { image, scale: (values.scale as number | undefined) ?? OPEN_ITEMS.upscaleScale.client.default },
      };
    case 'remove-bg':
      return { operation, params: { image } };
  }
}
