/**
 * `--shard` as a row filter: the shard's rows, intersected with `--rows`; `--redo` of a row of
 * another shard does nothing (every job of a matrix gets the same flags) while a typo is still an
 * error; the n shards cover every row exactly once.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { Expansion } from '../../src/pipeline/expansion.js';
import { resolveSelection, resolveShardSelections, type Selection } from '../../src/select/selection.js';
import { shardOfKey } from '../../src/select/shard.js';
import { validateYaml } from '../helpers/temp-pipeline.js';

const KEYS = Array.from({ length: 40 }, (_, i) => `SKU-${i + 1}`);

async function expansion(): Promise<Expansion> {
  const result = await validateYaml(`version: 1
name: t
rows:
${KEYS.map((key) => `  - { sku: ${key} }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe \${{ row.sku }}" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}" }
`);
  if (!result.expansion) throw new Error('invalid');
  return result.expansion;
}

const keysOf = (selection: Selection) => [...(selection.rowOrder ?? [])].map((row) => KEYS[row]);
const inShard = (index: number, count: number) => KEYS.filter((key) => shardOfKey(key, count) === index);

describe('a shard as a selection', () => {
  it('takes the rows whose key hashes to it, in file order, and knows how many it has', async () => {
    const exp = await expansion();
    const selection = resolveSelection(exp, { shard: { index: 2, count: 4 } });
    expect(keysOf(selection)).toEqual(inShard(2, 4));
    expect(selection.shard).toMatchObject({ index: 2, count: 4, rows: inShard(2, 4).length });
    for (const [row, key] of KEYS.entries()) {
      expect(selection.includesRow(row)).toBe(shardOfKey(key, 4) === 2);
      expect(selection.shard?.includes(row)).toBe(shardOfKey(key, 4) === 2);
    }
  });

  it('covers every row exactly once over the n shards', async () => {
    const exp = await expansion();
    const all = [1, 2, 3, 4, 5].flatMap((index) => keysOf(resolveSelection(exp, { shard: { index, count: 5 } })));
    expect(all.sort()).toEqual([...KEYS].sort());
  });

  it('with --rows takes the rows of both; a selector of rows in other shards is no error', async () => {
    const exp = await expansion();
    const rows = ['SKU-1*', '5-8'];
    const chosen = KEYS.filter((key, i) => key.startsWith('SKU-1') || (i >= 4 && i <= 7));
    for (const index of [1, 2, 3]) {
      const selection = resolveSelection(exp, { rows, shard: { index, count: 3 } });
      expect(keysOf(selection)).toEqual(chosen.filter((key) => shardOfKey(key, 3) === index));
      // The shard's own rows, whatever --rows chose: its folder and manifest are about them.
      expect(selection.shard?.rows).toBe(inShard(index, 3).length);
    }
    // A selector that names no row at all is still a usage error.
    expect(() => resolveSelection(exp, { rows: ['SKU-99'], shard: { index: 1, count: 3 } })).toThrow(UsageError);
  });

  it('redoes only its own rows of a --redo, and still refuses a typo or a row --rows did not choose', async () => {
    const exp = await expansion();
    const key = 'SKU-7';
    const own = shardOfKey(key, 4);
    const other = (own % 4) + 1;
    const row = KEYS.indexOf(key);
    const mine = resolveSelection(exp, { redo: [`${key}:hero`], shard: { index: own, count: 4 } });
    expect(mine.redo?.has(row, 0)).toBe(true);
    expect(mine.redo?.has(row, 1)).toBe(true);
    const theirs = resolveSelection(exp, { redo: [`${key}:hero`], shard: { index: other, count: 4 } });
    expect(KEYS.some((_, at) => theirs.redo?.has(at, 0))).toBe(false);
    expect(() => resolveSelection(exp, { redo: ['SKU-7:hreo'], shard: { index: other, count: 4 } })).toThrow(
      'no step "hreo"',
    );
    expect(() => resolveSelection(exp, { rows: ['SKU-8'], redo: [key], shard: { index: own, count: 4 } })).toThrow(
      'selected by --rows',
    );
  });

  it('resolves all n shards at once as it resolves each', async () => {
    const exp = await expansion();
    const flags = { rows: ['1-30'], redo: ['*:big'] };
    const together = resolveShardSelections(exp, flags, 4);
    for (const [at, selection] of together.entries()) {
      const alone = resolveSelection(exp, { ...flags, shard: { index: at + 1, count: 4 } });
      expect(keysOf(selection)).toEqual(keysOf(alone));
      expect(selection.shard).toMatchObject({ index: at + 1, count: 4, rows: alone.shard?.rows });
      for (let row = 0; row < KEYS.length; row++) expect(selection.redo?.has(row, 1)).toBe(alone.redo?.has(row, 1));
    }
  });
});
