/**
 * Which instances an earlier run's results cover, worked out before anything is sent, so the plan
 * can count them as 0 credits and 0 requests. Instances are asked about in expansion order (each
 * row's steps in step order), so an output's identity is known when the steps that use it are
 * asked about; the answer is remembered, so a second pass over the same instances (a `--fit`
 * plan) gets the same answer. Synchronous, so the plan asks while it prices each instance, in one
 * pass over the rows.
 */
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { ImageInput } from '../pipeline/params/image-input.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type FileHasher, fingerprint, type ImageIdentity, sha256 } from './fingerprint.js';
import type { JournalFile } from './journal-records.js';
import type { ResultCache } from './result-cache.js';

export class CacheProbe {
  readonly #cache: ResultCache;
  readonly #hasher: FileHasher;
  readonly #cached = new Set<string>();
  /** Keys asked about so far: asked again, the first answer stands. */
  readonly #asked = new Set<string>();
  /** The current row's cached outputs: only steps of the same row use them. */
  #row = -1;
  #files = new Map<string, readonly JournalFile[]>();

  constructor(cache: ResultCache, hasher: FileHasher) {
    this.#cache = cache;
    this.#hasher = hasher;
  }

  /** The keys found cached so far. */
  get cached(): ReadonlySet<string> {
    return this.#cached;
  }

  isCached(instance: StepInstance): boolean {
    if (this.#asked.has(instance.key)) return this.#cached.has(instance.key);
    this.#asked.add(instance.key);
    if (instance.rowIndex !== this.#row) {
      this.#row = instance.rowIndex;
      this.#files = new Map();
    }
    const identity = this.#imageIdentity(instance);
    if (identity === null) return false;
    const workFingerprint = fingerprint(instance as OperationCall, identity === undefined ? {} : { image: identity });
    const result = this.#cache.find(instance.key, workFingerprint);
    if (!result) return false;
    this.#cached.add(instance.key);
    this.#files.set(instance.stepId, result.files);
    return true;
  }

  /** The image's identity; null when it is the output of an instance that is not cached. */
  #imageIdentity(instance: StepInstance): ImageIdentity | undefined | null {
    const image = (instance.params as { image?: ImageInput }).image;
    if (!image) return undefined;
    switch (image.kind) {
      case 'url':
        return { kind: 'url', url: image.url };
      case 'data-uri':
        return { kind: 'bytes', sha256: sha256(image.uri) };
      case 'file':
        return { kind: 'bytes', sha256: this.#hasher.hashSync(image.path) ?? 'missing' };
      case 'output': {
        const file = this.#files.get(image.step)?.find((candidate) => candidate.index === image.index);
        return file ? { kind: 'bytes', sha256: file.sha256 } : null;
      }
    }
  }
}

/** Every instance the cache covers, as a run sees it before it starts. */
export function probeCache(expansion: Expansion, cache: ResultCache, hasher: FileHasher): Set<string> {
  const probe = new CacheProbe(cache, hasher);
  for (const instance of expansion.instances()) probe.isCached(instance);
  return probe.cached as Set<string>;
}
