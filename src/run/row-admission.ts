/**
 * `--fit` while the run works: a row is started only when the quota left, less what the rows
 * already started may still need in the worst case, covers the row's own worst case (and the same
 * for the budget's credits). When a row finishes, what it did not use goes back to the rows
 * waiting. A row that does not fit waits while started rows may still give room back; once none
 * can, it is deferred and the next row is tried, so a smaller row later in the order still uses
 * what is left. A night never ends with half a row's assets made for want of quota.
 */
import type { DeferredFor } from '../plan/fit-rows.js';
import type { RowNeeds } from '../plan/row-needs.js';

export interface RowUse {
  readonly requests: number;
  readonly credits: number;
}

/** Requests and credits the run may use; Infinity where nothing limits. */
export interface Allowance {
  readonly requests: number;
  readonly credits: number;
}

export class RowAdmission {
  readonly #needs: RowNeeds;
  readonly #allowance: Allowance;
  /** What finished rows used. */
  #usedRequests = 0;
  #usedCredits = 0;
  /** The worst case of the rows started and not finished. */
  #reservedRequests = 0;
  #reservedCredits = 0;
  #running = 0;
  #waiting: (() => void)[] = [];

  constructor(needs: RowNeeds, allowance: Allowance) {
    this.#needs = needs;
    this.#allowance = allowance;
  }

  /**
   * Resolves when the row may start (undefined; its worst case is then reserved) or will not
   * fit whatever the started rows give back (what it does not fit). `stopping()` ends a wait early:
   * the row is then not started and not reserved either.
   */
  async admit(row: number, stopping: () => boolean): Promise<DeferredFor | 'stopping' | undefined> {
    for (;;) {
      if (stopping()) return 'stopping';
      const refusal = this.#refusal(row);
      if (refusal === undefined) {
        this.#reservedRequests += this.#needs.worstRequests[row] ?? 0;
        this.#reservedCredits += this.#needs.credits[row] ?? 0;
        this.#running++;
        return undefined;
      }
      if (this.#running === 0) return refusal;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** A started row finished: its reservation is replaced by what it used. */
  finish(row: number, used: RowUse): void {
    this.#reservedRequests -= this.#needs.worstRequests[row] ?? 0;
    this.#reservedCredits -= this.#needs.credits[row] ?? 0;
    this.#usedRequests += used.requests;
    this.#usedCredits += used.credits;
    this.#running--;
    this.wake();
  }

  /** Lets the rows waiting look again (after a finish, or when the run stops). */
  wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  #refusal(row: number): DeferredFor | undefined {
    const requests = this.#usedRequests + this.#reservedRequests + (this.#needs.worstRequests[row] ?? 0);
    if (requests > this.#allowance.requests) return 'quota';
    const credits = this.#usedCredits + this.#reservedCredits + (this.#needs.credits[row] ?? 0);
    if (credits > this.#allowance.credits) return 'budget';
    return undefined;
  }
}
