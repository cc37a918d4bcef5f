/** The plan's `--fit`: whole rows in order, smaller later rows still fit, the rest packed into windows. */
import { describe, expect, it } from 'vitest';
import { fitRows } from '../../src/plan/fit-rows.js';
import type { RowNeeds } from '../../src/plan/row-needs.js';

function needs(rows: readonly [worst: number, expected: number, credits: number][]): RowNeeds {
  return {
    worstRequests: Float64Array.from(rows.map((row) => row[0])),
    expectedRequests: Float64Array.from(rows.map((row) => row[1])),
    credits: Float64Array.from(rows.map((row) => row[2])),
  };
}

const ALL = (count: number) => Array.from({ length: count }, (_, row) => row);
const NO_LIMIT = Number.POSITIVE_INFINITY;

describe('fitRows', () => {
  it('takes whole rows while the quota covers each one worst case, and defers the rest', () => {
    const result = fitRows(
      ALL(5),
      needs(Array(5).fill([4, 4, 100])),
      { requests: 10, credits: NO_LIMIT },
      { requests: 10, credits: NO_LIMIT },
    );
    expect([...result.tonight]).toEqual([1, 1, 0, 0, 0]);
    expect(result).toMatchObject({
      rowsWithWork: 5,
      rowsTonight: 2,
      deferred: { quota: 3, budget: 0 },
      windowsMore: 2,
    });
  });

  it('lets a smaller row later in the order use what a bigger one could not', () => {
    // A video row (worst 30) does not fit the 12 left after two rows; the picture row after it does.
    const result = fitRows(
      ALL(4),
      needs([
        [4, 4, 0],
        [4, 4, 0],
        [30, 6, 0],
        [4, 4, 0],
      ]),
      { requests: 16, credits: NO_LIMIT },
      { requests: 100, credits: NO_LIMIT },
    );
    expect([...result.tonight]).toEqual([1, 1, 0, 1]);
    expect(result.deferred).toEqual({ quota: 1, budget: 0 });
  });

  it('counts what earlier rows are expected to use, and each row by its worst case', () => {
    // Expected 6 each: after two rows 12 are used, and the third row's worst case of 30 needs 42.
    const rows = needs(Array(3).fill([30, 6, 0]));
    expect(
      fitRows(ALL(3), rows, { requests: 42, credits: NO_LIMIT }, { requests: 42, credits: NO_LIMIT }).rowsTonight,
    ).toBe(3);
    expect(
      fitRows(ALL(3), rows, { requests: 41, credits: NO_LIMIT }, { requests: 41, credits: NO_LIMIT }).rowsTonight,
    ).toBe(2);
  });

  it('defers for the budget, and names rows that can never fit', () => {
    const result = fitRows(
      ALL(4),
      needs([
        [1, 1, 300],
        [1, 1, 300],
        [1, 1, 900],
        [1, 1, 300],
      ]),
      { requests: NO_LIMIT, credits: 700 },
      { requests: NO_LIMIT, credits: 700 },
    );
    expect([...result.tonight]).toEqual([1, 1, 0, 0]);
    expect(result).toMatchObject({ deferred: { quota: 0, budget: 2 }, neverFit: [2], windowsMore: 1, rowsTonight: 2 });
  });

  it('follows the order it is given, and counts rows with nothing to send as running', () => {
    const result = fitRows(
      [3, 2, 1, 0],
      needs([
        [4, 4, 0],
        [0, 0, 0],
        [4, 4, 0],
        [4, 4, 0],
      ]),
      { requests: 8, credits: NO_LIMIT },
      { requests: 8, credits: NO_LIMIT },
    );
    expect([...result.tonight]).toEqual([0, 1, 1, 1]);
    expect(result.rowsWithWork).toBe(3);
  });
});
