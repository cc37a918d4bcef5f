/**
 * The image inputs of an instance as the call needs them, and their identities for the
 * fingerprint. An earlier step's output is sent by its URL while that is fresh, and as its
 * downloaded file (a data URI) once the URL may have expired, as on a resume the next day; either
 * way its identity is the SHA-256 of its bytes, so the cache sees the same work.
 */
import type { ImageInput } from '../pipeline/params/image-input.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type FileHasher, type ImageIdentity, sha256 } from './fingerprint.js';
import type { OutputLayout } from './output-layout.js';
import type { InstanceOutcome } from './run-outcome.js';

/** Use a result URL only while it has this long left: a request may wait in a queue. */
export const URL_SAFETY_MS = 60 * 60 * 1000;

export interface ResolvedInputs {
  readonly call: OperationCall;
  readonly identities: Readonly<Record<string, ImageIdentity>>;
}

export async function resolveInputs(
  call: OperationCall,
  upstream: (stepId: string) => InstanceOutcome | undefined,
  layout: OutputLayout,
  hasher: FileHasher,
  now: number,
): Promise<ResolvedInputs> {
  const params = call.params as unknown as Record<string, unknown>;
  const image = params.image as ImageInput | undefined;
  if (!image) return { call, identities: {} };
  let sent: ImageInput = image;
  let identity: ImageIdentity;
  switch (image.kind) {
    case 'url':
      identity = { kind: 'url', url: image.url };
      break;
    case 'data-uri':
      identity = { kind: 'bytes', sha256: sha256(image.uri) };
      break;
    case 'file':
      identity = { kind: 'bytes', sha256: await hasher.hash(image.path) };
      break;
    case 'output': {
      const source = upstream(image.step);
      const file = source?.files.find((candidate) => candidate.index === image.index);
      if (!source || !file) throw new Error(`internal: output ${image.index} of step ${image.step} is missing`);
      const fresh = source.urlExpiresAt !== undefined && source.urlExpiresAt - now > URL_SAFETY_MS;
      sent = fresh
        ? { kind: 'url', url: file.url }
        : { kind: 'file', path: layout.absolute(file.path), shown: file.path };
      identity = { kind: 'bytes', sha256: file.sha256 };
      break;
    }
  }
  return {
    call: { ...call, params: { ...call.params, image: sent } } as OperationCall,
    identities: { image: identity },
  };
}
