/**
 * Which instances an earlier run's results cover, worked out before anything is sent, so the plan
 * can count them as 0 credits and 0 requests. Instances are asked about in expansion order (each
 * row's steps in step order), so an output's identity is known when the steps that use it are
 * asked about; each answer is remembered, so a second pass over the same instances (a `--fit`
 * plan) gets the same one. Synchronous, so a plan asks while it prices each instance, in one pass.
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

/** Outputs of the current row's steps, by step id. */
type Outputs = Map<string, readonly JournalFile[]>;

export class CacheProbe {
  readonly #cache: ResultCache;
  readonly #hasher: FileHasher;
  readonly #forced: ((instance: StepInstance) => boolean) | undefined;
  readonly #cached = new Set<string>();
  readonly #redone = new Set<string>();
  readonly #asked = new Set<string>();
  #row = -1;
  /** Each output of the current row as the folder holds it, and as the run will see it. */
  #held: Outputs = new Map();
  #seen: Outputs = this.#held;

  constructor(cache: ResultCache, hasher: FileHasher, forced?: (instance: StepInstance) => boolean) {
    this.#cache = cache;
    this.#hasher = hasher;
    this.#forced = forced;
  }

  /** Instances the run reuses, of those asked about. */
  get cached(): ReadonlySet<string> {
    return this.#cached;
  }

  /** Forced instances whose results the folder holds: what a redo pays for again. */
  get redone(): ReadonlySet<string> {
    return this.#redone;
  }

  isCached(instance: StepInstance): boolean {
    this.#ask(instance);
    return this.#cached.has(instance.key);
  }

  isRedone(instance: StepInstance): boolean {
    this.#ask(instance);
    return this.#redone.has(instance.key);
  }

  #ask(instance: StepInstance): void {
    if (this.#asked.has(instance.key)) return;
    this.#asked.add(instance.key);
    if (instance.rowIndex !== this.#row) {
      this.#row = instance.rowIndex;
      this.#held = new Map();
      // Without forced steps the run sees the outputs as the folder holds them.
      this.#seen = this.#forced ? new Map() : this.#held;
    }
    const forced = this.#forced?.(instance) ?? false;
    const held = this.#lookup(instance, this.#held);
    if (held) this.#held.set(instance.stepId, held);
    if (forced) {
      if (held) this.#redone.add(instance.key);
      return;
    }
    const result = this.#seen === this.#held ? held : this.#lookup(instance, this.#seen);
    if (!result) return;
    this.#cached.add(instance.key);
    this.#seen.set(instance.stepId, result);
  }

  /** The files of the result the folder holds for the instance, its inputs being `outputs`. */
  #lookup(instance: StepInstance, outputs: Outputs): readonly JournalFile[] | undefined {
    const identity = this.#imageIdentity(instance, outputs);
    if (identity === null) return undefined;
    const workFingerprint = fingerprint(instance as OperationCall, identity === undefined ? {} : { image: identity });
    return this.#cache.find(instance.key, workFingerprint)?.files;
  }

  /** The image's identity; null when it is the output of an instance that is not cached. */
  #imageIdentity(instance: StepInstance, outputs: Outputs): ImageIdentity | undefined | null {
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
        const file = outputs.get(image.step)?.find((candidate) => candidate.index === image.index);
        return file ? { kind: 'bytes', sha256: file.sha256 } : null;
      }
    }
  }
}

/** Every instance of the rows the run takes, looked up as the run sees them before it starts. */
export function probeCache(
  expansion: Expansion,
  cache: ResultCache,
  hasher: FileHasher,
  options: ProbeOptions = {},
): CacheProbe {
  const probe = new CacheProbe(cache, hasher, options.forced);
  for (const instance of expansion.instances(options.includeRow)) probe.isCached(instance);
  return probe;
}
