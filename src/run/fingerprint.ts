/**
 * The content address of a step instance: its operation and rendered parameters, with images
 * replaced by what they are (a URL as written, a local file or an upstream output by the SHA-256 of
 * its bytes). Equal fingerprints mean equal work: the cache reuses the result, whatever row it came
 * from. The idempotency key adds the instance and a generation that moves on only after an outcome
 * was recorded, so a retry after a crash reuses the key and a fresh attempt does not. A redo adds
 * the id of the run that starts it: even the same work, at a generation an earlier story (or a
 * journal set aside by --fresh) already used, gets a key the service has never answered.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { OperationCall } from '../pipeline/params/operation-params.js';

export type ImageIdentity =
  { readonly kind: 'url'; readonly url: string } | { readonly kind: 'bytes'; readonly sha256: string };

export function fingerprint(call: OperationCall, images: Readonly<Record<string, ImageIdentity>>): string {
  const params: Record<string, unknown> = { ...call.params };
  for (const [field, identity] of Object.entries(images)) params[field] = identity;
  return sha256(JSON.stringify({ operation: call.operation, params: sortKeys(params) }));
}

export function idempotencyKey(
  pipeline: string,
  instanceKey: string,
  fingerprintValue: string,
  generation: number,
  salt?: string,
): string {
  const salted = salt === undefined ? '' : `\u0000${salt}`;
  return `al-${sha256(`${pipeline}\u0000${instanceKey}\u0000${fingerprintValue}\u0000${generation}${salted}`).slice(0, 40)}`;
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** SHA-256 of a file, remembered by path, size and modification time. */
export class FileHasher {
  readonly #known = new Map<string, { size: number; mtimeMs: number; sha256: string }>();

  async hash(file: string): Promise<string> {
    const info = await stat(file);
    const known = this.#known.get(file);
    if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known.sha256;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    const sha256Value = hash.digest('hex');
    this.#known.set(file, { size: info.size, mtimeMs: info.mtimeMs, sha256: sha256Value });
    return sha256Value;
  }

  /**
   * The same, read at once: for a plan, which asks in one synchronous pass (local input images
   * are few and small next to the rows that use them). Undefined when the file cannot be read.
   */
  hashSync(file: string): string | undefined {
    const info = statSync(file, { throwIfNoEntry: false });
    if (!info) return undefined;
    const known = this.#known.get(file);
    if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known.sha256;
    let sha256Value: string;
    try {
      sha256Value = sha256(readFileSync(file));
    } catch {
      return undefined;
    }
    this.#known.set(file, { size: info.size, mtimeMs: info.mtimeMs, sha256: sha256Value });
    return sha256Value;
  }
}

function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, value[key]]),
  );
}
