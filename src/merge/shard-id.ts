/**
 * A shard's name: `<index>-of-<count>`, from 1, as its folder under shards/ is named and as the
 * merged manifest records it. An unsharded run is the one shard of itself, `1-of-1`.
 */
import type { ManifestHead } from '../manifest/manifest-schema.js';

export interface ShardId {
  readonly index: number;
  readonly count: number;
}

/** A shard folder's name: what `run --shard i/n` writes into under `<out>/<pipeline>/shards/`. */
export const SHARD_FOLDER = /^[1-9]\d*-of-[1-9]\d*$/;

export function shardLabel(id: ShardId): string {
  return `${id.index}-of-${id.count}`;
}

export function shardOf(head: ManifestHead): ShardId {
  return head.shard ?? { index: 1, count: 1 };
}

/** Shard folders in the order of their index (`10-of-12` after `9-of-12`), not of their names. */
export function byShardIndex(a: string, b: string): number {
  return Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b);
}
