/**
 * `--fit` as a plan sees it: rows taken in their order (priority, then the sheet's), each started
 * only when what is left of the quota covers its worst case and what is left of the budget covers
 * its credits; a row that does not fit is deferred, and later (smaller) rows may still fit. Rows
 * before it are taken to use what they are expected to use (the run gives back what a finished row
 * did not use, so it fits at least as many rows when videos take their usual time). Then the rest
 * is packed the same way into further nights of a whole day's quota and budget.
 */
import type { RowNeeds } from './row-needs.js';

export type DeferredFor = 'quota' | 'budget';

/** Requests and credits available; Infinity where nothing limits. */
export interface Capacity {
  readonly requests: number;
  readonly credits: number;
}

export interface FitResult {
  /** By sheet row index: 1 when the row runs tonight (rows with nothing to send included). */
  readonly tonight: Uint8Array;
  /** Rows with something to send. */
  readonly rowsWithWork: number;
  /** Of those, the rows that run tonight. */
  readonly rowsTonight: number;
  readonly deferred: { readonly quota: number; readonly budget: number };
  /** Further windows (nights at a whole day's quota and budget) the deferred rows need. */
  readonly windowsMore: number;
  /** Rows whose own worst case passes a whole day's quota or the budget: --fit never starts them. */
  readonly neverFit: readonly number[];
}

export function fitRows(order: ArrayLike<number>, needs: RowNeeds, left: Capacity, perWindow: Capacity): FitResult {
  const tonight = new Uint8Array(needs.worstRequests.length);
  const waiting: number[] = [];
  const neverFit: number[] = [];
  const deferred = { quota: 0, budget: 0 };
  let rowsWithWork = 0;
  const night = new Night(left);
  for (let at = 0; at < order.length; at++) {
    const row = order[at] as number;
    if (!hasWork(needs, row)) {
      tonight[row] = 1;
      continue;
    }
    rowsWithWork++;
    const refusal = night.take(needs, row);
    if (refusal === undefined) {
      tonight[row] = 1;
      continue;
    }
    deferred[refusal]++;
    if (new Night(perWindow).take(needs, row) !== undefined) neverFit.push(row);
    else waiting.push(row);
  }
  // Each later window takes, in order, the waiting rows that fit it: the first window a row fits is
  // the night it runs, as the nightly runs would take them.
  const windows: Night[] = [];
  for (const row of waiting) {
    if (windows.some((window) => window.take(needs, row) === undefined)) continue;
    const window = new Night(perWindow);
    window.take(needs, row);
    windows.push(window);
  }
  return {
    tonight,
    rowsWithWork,
    rowsTonight: rowsWithWork - waiting.length - neverFit.length,
    deferred,
    windowsMore: windows.length,
    neverFit,
  };
}

function hasWork(needs: RowNeeds, row: number): boolean {
  return (needs.worstRequests[row] ?? 0) > 0 || (needs.credits[row] ?? 0) > 0;
}

/** One window's quota and budget, filled row by row. */
class Night {
  readonly #capacity: Capacity;
  #requests = 0;
  #credits = 0;

  constructor(capacity: Capacity) {
    this.#capacity = capacity;
  }

  /** Takes the row when it fits; otherwise says what it does not fit. */
  take(needs: RowNeeds, row: number): DeferredFor | undefined {
    if (this.#requests + (needs.worstRequests[row] ?? 0) > this.#capacity.requests) return 'quota';
    if (this.#credits + (needs.credits[row] ?? 0) > this.#capacity.credits) return 'budget';
    this.#requests += needs.expectedRequests[row] ?? 0;
    this.#credits += needs.credits[row] ?? 0;
    return undefined;
  }
}
