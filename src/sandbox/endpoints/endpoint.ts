/**
 * What an endpoint is to the request pipeline: `prepare` validates the body (throwing
 * SandboxError with the reference's codes) and prices the work; `perform` does it and returns
 * the answer's fields. The pipeline checks the balance between the two, so nothing is done or
 * charged for a request the balance cannot cover.
 */
import type { Operation } from '../../catalog/operations.js';
import type { FaultPlan } from '../faults.js';
import { loadImage } from '../image-source.js';
import type { Body } from '../request-fields.js';
import { placeholder } from '../media/placeholder.js';
import type { EndpointState } from '../sandbox-state.js';

export interface EndpointContext {
  readonly state: EndpointState;
  readonly faults: FaultPlan;
  readonly accountName: string;
  readonly idempotencyKey: string | undefined;
}

export interface Prepared {
  readonly credits: number;
  /** Video is charged when the job completes, not when it is submitted. */
  readonly chargeNow: boolean;
  perform(requestId: string): Record<string, unknown>;
}

export interface CreateEndpoint {
  readonly path: string;
  readonly operation: Operation;
  prepare(body: Body, context: EndpointContext): Promise<Prepared>;
}

/** A file to hand out: registered now, rendered on first download. `id`: its own, else a new one. */
export function resultUrl(
  state: EndpointState,
  mediaType: 'image/png' | 'audio/mpeg' | 'video/mp4',
  render: () => Promise<Uint8Array>,
  id = state.newId(mediaType === 'image/png' ? 'img' : mediaType === 'audio/mpeg' ? 'aud' : 'vid'),
): string {
  const make = state.media === 'placeholder' ? () => placeholder(mediaType) : render;
  return `${state.baseUrl}${state.files.add({ id, mediaType, createdAt: state.now(), render: make })}`;
}

/**
 * The request's image, read as the service would: a data URI (or, for video, plain base64), one of
 * this sandbox's result URLs, or an outside URL standing for a placeholder.
 */
export function requestImage(state: EndpointState, value: unknown, allowRawBase64 = false): Promise<Uint8Array> {
  return loadImage(value, { files: state.files, baseUrl: state.baseUrl, now: state.now(), allowRawBase64 });
}
