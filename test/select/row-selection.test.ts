/** `--rows`: keys first, then globs, then row numbers and ranges; every selector must name a row. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { RowKeys } from '../../src/select/row-matcher.js';
import { selectRows } from '../../src/select/row-selection.js';

const rowsOf = (...keys: string[]): RowKeys => ({ count: keys.length, key: (index) => keys[index] ?? '' });
const SKUS = rowsOf('SKU-1', 'SKU-2', 'SKU-10', 'SKU-11', 'B2');
const select = (values: string[], rows = SKUS) => [...selectRows(values, rows)];

function usageError(values: string[], rows = SKUS): string {
  try {
    selectRows(values, rows);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('--rows', () => {
  it('names rows by key, by glob, by number and by range, in file order, each once', () => {
    expect(select(['B2'])).toEqual([4]);
    expect(select(['SKU-1*'])).toEqual([0, 2, 3]);
    expect(select(['2'])).toEqual([1]);
    expect(select(['2-4'])).toEqual([1, 2, 3]);
    expect(select(['B2,1', 'SKU-1*', ' 2 '])).toEqual([0, 1, 2, 3, 4]);
  });

  it('reads a selector as a row key before a row number or a range', () => {
    // Keys that look like numbers: "2" is the row keyed 2 (the third), not the second row.
    const numbered = rowsOf('10', '1-2', '2', 'x');
    expect(select(['2'], numbered)).toEqual([2]);
    expect(select(['1-2'], numbered)).toEqual([1]);
    expect(select(['1'], numbered)).toEqual([0]);
    expect(select(['3-4'], numbered)).toEqual([2, 3]);
  });

  it('without row_key, the keys are the row numbers', () => {
    const plain = rowsOf('1', '2', '3');
    expect(select(['3', '1-2'], plain)).toEqual([0, 1, 2]);
  });

  it('refuses a key that names no row, with the closest one', () => {
    expect(usageError(['sku-10'])).toBe('--rows sku-10: no row has the key "sku-10"; did you mean "SKU-10"?');
    // As close to SKU-1 as to SKU-2: a guess, not a suggestion.
    expect(usageError(['SKU-3'])).toBe('--rows SKU-3: no row has the key "SKU-3"');
    expect(usageError(['nothing-like-it'])).toBe('--rows nothing-like-it: no row has the key "nothing-like-it"');
  });

  it('refuses a glob that matches nothing and a range past the last row', () => {
    expect(usageError(['X*'])).toBe('--rows X*: no row key matches "X*"');
    expect(usageError(['4-6'])).toBe('--rows 4-6: "4-6" goes past the last row: the rows file has 5 rows');
    expect(usageError(['9'])).toBe('--rows 9: "9" goes past the last row: the rows file has 5 rows');
    expect(usageError(['0'])).toMatch(/not a range of row numbers/);
    expect(usageError(['3-2'])).toMatch(/not a range of row numbers/);
  });

  it('reports every bad selector at once, and an empty one', () => {
    expect(usageError(['SKU-1,', 'Q*']).split('\n')).toEqual([
      '--rows: an empty selector (two commas, or a comma at an end)',
      '--rows Q*: no row key matches "Q*"',
    ]);
  });
});
