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

/** Build the call from values that passed validation (required fields are known to be there). */
export function operationCall(operation: Operation, values: Params): OperationCall {
  const str = (field: string) => values[field] as string;
  const optional = <T>(field: string) => (values[field] === undefined ? {} : { [field]: values[field] as T });
  const image = () => values.image as ImageInput;
  switch (operation) {
    case 'generate':
      return {
        operation,
        params: {
          prompt: str('prompt'),
          model: str('model'),
          ...optional<number>('width'),
          ...optional<number>('height'),
          num_images: (values.num_images as number | undefined) ?? 1,
          ...optional<string>('resolution'),
          ...optional<string>('quality'),
        },
      };
    case 'edit':
      return {
        operation,
        params: {
          prompt: str('prompt'),
          image: image(),
          model: str('model'),
          ...optional<string>('resolution'),
          ...optional<string>('quality'),
        },
      };
    case 'video':
      return {
        operation,
        params: {
          prompt: str('prompt'),
          model: str('model'),
          mode: effectiveMode(values),
          ...optional<ImageInput>('image'),
          ...optional<string>('aspect_ratio'),
          ...optional<number>('duration'),
        },
      };
    case 'tts':
      return {
        operation,
        params: {
          text: str('text'),
          model: (values.model as string | undefined) ?? DEFAULT_TTS_MODEL,
          ...optional<string>('voice_id'),
        },
      };
    case 'upscale':
      return {
        operation,
        params: {
          image: image(),
          scale: (values.scale as number | undefined) ?? OPEN_ITEMS.upscaleScale.client.default,
        },
      };
    case 'remove-bg':
      return { operation, params: { image: image() } };
  }
}
