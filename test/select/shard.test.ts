/**
 * `--shard i/n`: the spec read strictly, and a row's shard a hash of its key alone, so it never
 * moves when other rows come and go, and n shards get about as many rows each.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  parseShard,
  parseShardCount,
  shardFolder,
  shardLabel,
  shardOfKey,
  shardsOfRows,
} from '../../src/select/shard.js';

function usageError(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

const rowsOf = (keys: readonly string[]) => ({ count: keys.length, key: (index: number) => keys[index] ?? '' });

describe('reading --shard', () => {
  it('takes i/n with 1 <= i <= n <= 256', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('256/256')).toEqual({ index: 256, count: 256 });
    expect(parseShard(' 3/8 ')).toEqual({ index: 3, count: 8 });
  });

  it('refuses anything else as a usage error that says the form expected', () => {
    for (const spec of ['0/4', '5/4', '1/0', 'a/b', '1/257', '2', '1/4/2', '', '-1/4', '1.5/4', '1 / 4', '2/4x']) {
      expect(usageError(() => parseShard(spec))).toBe(
        `--shard expects i/n, whole numbers with 1 <= i <= n <= 256, such as 2/4 (the second of 4 shards), got "${spec}"`,
      );
    }
    expect(usageError(() => parseShard('9/4', 'shard'))).toMatch(/^shard expects i\/n/);
  });

  it('reads --shards n from 1 to 256', () => {
    expect(parseShardCount('4')).toBe(4);
    expect(parseShardCount('256')).toBe(256);
    for (const value of ['0', '257', 'x', '', '2/4', '-1'])
      expect(usageError(() => parseShardCount(value))).toBe(
        `--shards expects a whole number of shards from 1 to 256, such as 4, got "${value}"`,
      );
  });

  it('names a shard as the flag does and its folder as i-of-n', () => {
    expect(shardLabel({ index: 2, count: 4 })).toBe('2/4');
    expect(shardFolder({ index: 2, count: 4 })).toBe('2-of-4');
  });
});

describe('the shard of a row key', () => {
  it('is the first 4 bytes of the SHA-256 of its UTF-8 key, as uint32, mod n, plus 1: the same everywhere, always', () => {
    // sha256("SKU-1") starts 75bbb0f6: 0x75bbb0f6 % 4 = 2, % 256 = 246. Changing the hash would
    // move most rows of every sharded folder to another shard: these values must never change.
    expect(shardOfKey('SKU-1', 4)).toBe(3);
    expect(shardOfKey('SKU-1', 256)).toBe(247);
    expect(shardOfKey('é-ü', 4)).toBe(1);
    expect(shardOfKey('é-ü', 256)).toBe(105);
    expect(shardOfKey('A1', 256)).toBe(135);
    expect(shardOfKey('anything', 1)).toBe(1);
  });

  it('depends on the key alone: rows added, removed or reordered move no other row', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `SKU-${i}`);
    const before = shardsOfRows(rowsOf(keys), 8);
    const changed = ['NEW-1', ...keys.slice(0, 100), 'NEW-2', ...keys.slice(150).reverse()];
    const after = shardsOfRows(rowsOf(changed), 8);
    for (const [index, key] of changed.entries()) {
      if (key.startsWith('NEW')) continue;
      expect(after[index]).toBe(before[keys.indexOf(key)]);
    }
  });

  it('spreads 10,000 keys evenly: every shard within 10% of the mean, for 2 to 16 shards', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `SKU-${String(i).padStart(5, '0')}`);
    for (const n of [2, 3, 4, 8, 16]) {
      const counts = new Array<number>(n + 1).fill(0);
      for (const shard of shardsOfRows(rowsOf(keys), n)) counts[shard] = (counts[shard] ?? 0) + 1;
      // None outside 1..n.
      expect(counts[0]).toBe(0);
      expect(counts.length).toBe(n + 1);
      counts.shift();
      const mean = keys.length / n;
      expect(Math.max(...counts) / mean).toBeLessThan(1.1);
      expect(Math.min(...counts) / mean).toBeGreaterThan(0.9);
    }
  });
});
