/**
 * Which instances an earlier run's results cover, worked out before anything is sent, so the plan
 * can count them as 0 credits and 0 requests. Instances are looked at in order, each row's steps
 * in step order, so an output's identity is known when the steps that use it are looked at.
 */
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { ImageInput } from '../pipeline/params/image-input.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type FileHasher, fingerprint, type ImageIdentity, sha256 } from './fingerprint.js';
import type { JournalFile } from './journal-records.js';
import type { ResultCache } from './result-cache.js';

export async function probeCache(expansion: Expansion, cache: ResultCache, hasher: FileHasher): Promise<Set<string>> {
  const cached = new Set<string>();
  const files = new Map<string, readonly JournalFile[]>();
  for (const instance of expansion.instances()) {
    const identity = await imageIdentity(instance, files, hasher);
    if (identity === null) continue;
    const workFingerprint = fingerprint(instance as OperationCall, identity === undefined ? {} : { image: identity });
    const result = await cache.find(instance.key, workFingerprint);
    if (!result) continue;
    cached.add(instance.key);
    files.set(instance.key, result.files);
  }
  return cached;
}

/** The image's identity; null when it is the output of an instance that is not cached. */
async function imageIdentity(
  instance: StepInstance,
  files: ReadonlyMap<string, readonly JournalFile[]>,
  hasher: FileHasher,
): Promise<ImageIdentity | undefined | null> {
  const image = (instance.params as { image?: ImageInput }).image;
  if (!image) return undefined;
  switch (image.kind) {
    case 'url':
      return { kind: 'url', url: image.url };
    case 'data-uri':
      return { kind: 'bytes', sha256: sha256(image.uri) };
    case 'file':
      return { kind: 'bytes', sha256: await hasher.hash(image.path).catch(() => 'missing') };
    case 'output': {
      const file = files.get(`${instance.rowKey}/${image.step}`)?.find((candidate) => candidate.index === image.index);
      return file ? { kind: 'bytes', sha256: file.sha256 } : null;
    }
  }
}
