/**
 * Which instances an earlier run's results cover, worked out before anything is sent, so the plan
 * can count them as 0 credits and 0 requests. Instances are looked at in order, each row's steps
 * in step order, so an output's identity is known when the steps that use it are looked at.
 *
 * A forced instance (--redo, or a redo an earlier run left unfinished) is sent whatever the folder
 * holds; when it holds its result, that result is paid for again (`redone`). The steps that use a
 * forced step's output are not cached either: their input is about to change.
 */
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { ImageInput } from '../pipeline/params/image-input.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type FileHasher, fingerprint, type ImageIdentity, sha256 } from './fingerprint.js';
import type { JournalFile } from './journal-records.js';
import type { ResultCache } from './result-cache.js';

export interface ProbeOptions {
  /** The rows the run takes (--rows); the others are not looked at. */
  readonly includeRow?: ((rowIndex: number) => boolean) | undefined;
  /** Instances sent whatever the cache holds. */
  readonly forced?: ((instance: StepInstance) => boolean) | undefined;
}

export interface CacheProbe {
  /** Instances the run reuses. */
  readonly cached: ReadonlySet<string>;
  /** Forced instances whose results the folder holds: what a redo pays for again. */
  readonly redone: ReadonlySet<string>;
}

type Outputs = Map<string, readonly JournalFile[]>;

export async function probeCache(
  expansion: Expansion,
  cache: ResultCache,
  hasher: FileHasher,
  options: ProbeOptions = {},
): Promise<CacheProbe> {
  const cached = new Set<string>();
  const redone = new Set<string>();
  // Each output as the folder holds it, and as the run will see it (a forced step's is not known).
  const held: Outputs = new Map();
  const seen: Outputs = options.forced ? new Map() : held;
  for (const instance of expansion.instances(options.includeRow)) {
    const forced = options.forced?.(instance) ?? false;
    const heldResult = await lookup(instance, held, cache, hasher);
    if (heldResult) held.set(instance.key, heldResult);
    if (forced) {
      if (heldResult) redone.add(instance.key);
      continue;
    }
    const result = seen === held ? heldResult : await lookup(instance, seen, cache, hasher);
    if (!result) continue;
    cached.add(instance.key);
    seen.set(instance.key, result);
  }
  return { cached, redone };
}

/** The files of the result the folder holds for the instance, its inputs being `outputs`. */
async function lookup(
  instance: StepInstance,
  outputs: Outputs,
  cache: ResultCache,
  hasher: FileHasher,
): Promise<readonly JournalFile[] | undefined> {
  const identity = await imageIdentity(instance, outputs, hasher);
  if (identity === null) return undefined;
  const workFingerprint = fingerprint(instance as OperationCall, identity === undefined ? {} : { image: identity });
  return (await cache.find(instance.key, workFingerprint))?.files;
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
