/**
 * `--shard i/n`: which rows one of n jobs takes. A row belongs to shard `uint32(sha256(key)[0..4])
 * mod n + 1`, its UTF-8 row key hashed: a row's shard depends on its key and n alone, never on the
 * other rows, so adding, removing or reordering rows moves no other row to another shard, and each
 * shard's output folder (its cache) stays valid night after night. Rows without `row_key:` are
 * keyed by their number, which inserting a row does change: shard a sheet by its own keys.
 *
 * SHA-256 rather than a faster hash: Node has it built in, it is the same on every machine and
 * version, and 100,000 keys take under a tenth of a second, next to validating the sheet.
 */
import { hash } from 'node:crypto';
import { UsageError } from '../errors.js';

/** At most this many shards: the matrix of a CI job (GitHub allows 256 jobs). */
export const MAX_SHARDS = 256;

/** One shard of `count`, numbered from 1. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

const SPEC = /^(\d+)\/(\d+)$/;

/**
 * `i/n` read strictly: two whole numbers with 1 <= i <= n <= 256.
 * @throws {UsageError} anything else, saying the form expected.
 */
export function parseShard(spec: string, flag = '--shard'): Shard {
  const match = SPEC.exec(spec.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count > MAX_SHARDS || index > count)
    throw new UsageError(
      `${flag} expects i/n, whole numbers with 1 <= i <= n <= ${MAX_SHARDS}, such as 2/4 (the second of 4 shards), got "${spec}"`,
    );
  return { index, count };
}

/**
 * `--shards n`: how many shards `plan` shows side by side.
 * @throws {UsageError} not a whole number from 1 to 256.
 */
export function parseShardCount(value: string, flag = '--shards'): number {
  const count = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(count >= 1 && count <= MAX_SHARDS))
    throw new UsageError(`${flag} expects a whole number of shards from 1 to ${MAX_SHARDS}, such as 4, got "${value}"`);
  return count;
}

/** The shard (from 1) of a row key among `count`. */
export function shardOfKey(key: string, count: number): number {
  // crypto.hash (one call, UTF-8 for a string) is 3 times as fast as createHash for short keys;
  // its first 8 hex digits are the first 4 bytes, big-endian.
  return (Number.parseInt(hash('sha256', key, 'hex').slice(0, 8), 16) % count) + 1;
}

/** Each row's shard (from 1) among `count`, by row index. */
export function shardsOfRows(rows: { readonly count: number; key(index: number): string }, count: number): Uint16Array {
  const shards = new Uint16Array(rows.count);
  for (let index = 0; index < rows.count; index++) shards[index] = shardOfKey(rows.key(index), count);
  return shards;
}

/** `2/4`, as the flag is written. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** `2-of-4`: the shard's folder under `<out>/<pipeline>/shards/`. */
export function shardFolder(shard: Shard): string {
  return `${shard.index}-of-${shard.count}`;
}
