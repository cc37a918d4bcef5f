/**
 * What each call of the client takes: the request fields of one operation, typed, with the
 * defaults already applied by the caller. These are the client's own types: the runner maps a
 * step's parameters onto them (src/run/call-operation.ts), and the API layer knows nothing of
 * pipelines.
 */
import type { VideoMode } from '../catalog/models.js';

/** An image the client can send. An earlier step's output is resolved to one of these first. */
export type ImageSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'data-uri'; readonly uri: string; readonly bytes: number }
  /** `shown` is the path as the user wrote it, for messages. */
  | { readonly kind: 'file'; readonly path: string; readonly shown: string };

export interface GenerateRequest {
  readonly prompt: string;
  readonly model: string;
  readonly num_images: number;
  readonly width?: number;
  readonly height?: number;
  readonly resolution?: string;
  readonly quality?: string;
}

export interface EditRequest {
  readonly prompt: string;
  readonly image: ImageSource;
  readonly model: string;
  readonly resolution?: string;
  readonly quality?: string;
}

export interface UpscaleRequest {
  readonly image: ImageSource;
  readonly scale: number;
}

export interface RemoveBgRequest {
  readonly image: ImageSource;
}

export interface TtsRequest {
  readonly text: string;
  readonly model: string;
  readonly voice_id?: string;
}

export interface VideoRequest {
  readonly prompt: string;
  readonly model: string;
  readonly mode: VideoMode;
  readonly image?: ImageSource;
  readonly aspect_ratio?: string;
  readonly duration?: number;
}
