/**
 * Which rows one selector names, for `--rows` and the row part of `--redo`. In this order, the
 * first that applies wins:
 *
 * 1. a row key, exactly (so a sheet whose keys are numbers, or look like ranges, is named by key);
 * 2. a glob over row keys (`SKU-1*`, `?2`);
 * 3. a row number from 1 (`7`), or a range of them (`1-20`, both ends included), in the order of
 *    the rows file (a sheet's header is not a row: its first data row is 1).
 *
 * Anything else, a glob that matches no key, or a number past the last row, is a problem the
 * caller reports as a usage error (with the closest key when one is close enough).
 */
import { didYouMean } from '../pipeline/did-you-mean.js';
import { globPattern, isGlob } from './key-glob.js';

/** The rows of an expanded pipeline, by key. */
export interface RowKeys {
  readonly count: number;
  /** The row's key: its `row_key` value, or its number from 1 without one. */
  key(index: number): string;
}

export type RowMatch = { readonly rows: readonly number[] } | { readonly problem: string };

const RANGE = /^(\d+)(?:-(\d+))?$/;

export class RowMatcher {
  readonly #rows: RowKeys;
  #byKey: Map<string, number> | undefined;

  constructor(rows: RowKeys) {
    this.#rows = rows;
  }

  /** True when `selector` is exactly a row's key. */
  hasKey(selector: string): boolean {
    return this.#keys().has(selector);
  }

  /** The rows `selector` names, in file order, or why it names none. */
  match(selector: string): RowMatch {
    const exact = this.#keys().get(selector);
    if (exact !== undefined) return { rows: [exact] };
    if (isGlob(selector)) {
      const pattern = globPattern(selector);
      const rows: number[] = [];
      for (let index = 0; index < this.#rows.count; index++) if (pattern.test(this.#rows.key(index))) rows.push(index);
      return rows.length > 0 ? { rows } : { problem: `no row key matches "${selector}"` };
    }
    const range = RANGE.exec(selector);
    if (range) return this.#range(selector, Number(range[1]), Number(range[2] ?? range[1]));
    return { problem: `no row has the key "${selector}"${didYouMean(selector, this.#keys().keys())}` };
  }

  #range(selector: string, first: number, last: number): RowMatch {
    const count = this.#rows.count;
    if (first < 1 || last < first)
      return { problem: `"${selector}" is not a range of row numbers: expected N-M with 1 <= N <= M` };
    if (last > count)
      return {
        problem: `"${selector}" goes past the last row: the rows file has ${count} row${count === 1 ? '' : 's'}`,
      };
    return { rows: Array.from({ length: last - first + 1 }, (_, i) => first - 1 + i) };
  }

  /** Built on first use: a run without selectors never indexes 100,000 keys. */
  #keys(): Map<string, number> {
    if (!this.#byKey) {
      this.#byKey = new Map();
      for (let index = 0; index < this.#rows.count; index++) this.#byKey.set(this.#rows.key(index), index);
    }
    return this.#byKey;
  }
}

/** Each flag value split at commas (`--rows A,B --rows C`), trimmed. */
export function selectorsOf(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((selector) => selector.trim());
}
