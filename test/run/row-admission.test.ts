/** `--fit` at run time: rows wait for room a started row gives back, and are deferred when none can. */
import { describe, expect, it } from 'vitest';
import type { RowNeeds } from '../../src/plan/row-needs.js';
import { RowAdmission } from '../../src/run/row-admission.js';

const needs = (worst: number[], credits: number[] = worst.map(() => 0)): RowNeeds => ({
  worstRequests: Float64Array.from(worst),
  expectedRequests: Float64Array.from(worst),
  credits: Float64Array.from(credits),
});
const running = () => false;

describe('RowAdmission', () => {
  it('starts a row only when the worst case of the rows started leaves room for it', async () => {
    const admission = new RowAdmission(needs([30, 30, 30]), { requests: 70, credits: Number.POSITIVE_INFINITY });
    expect(await admission.admit(0, running)).toBeUndefined();
    expect(await admission.admit(1, running)).toBeUndefined();
    // 60 reserved: row 2 (30) waits for a started row to finish.
    let third: string | undefined = 'waiting';
    const waiting = admission.admit(2, running).then((result) => {
      third = result;
    });
    await Promise.resolve();
    expect(third).toBe('waiting');
    // Row 0 used 6 of its 30: 24 come back, 6 + 30 + 30 = 66 fits.
    admission.finish(0, { requests: 6, credits: 0 });
    await waiting;
    expect(third).toBeUndefined();
  });

  it('defers a row that does not fit once no started row can give room back', async () => {
    const admission = new RowAdmission(needs([30, 30]), { requests: 50, credits: Number.POSITIVE_INFINITY });
    expect(await admission.admit(0, running)).toBeUndefined();
    const second = admission.admit(1, running);
    admission.finish(0, { requests: 30, credits: 0 });
    expect(await second).toBe('quota');
  });

  it('defers for the budget, counting the credits finished rows were charged', async () => {
    const admission = new RowAdmission(needs([1, 1, 1], [300, 300, 300]), { requests: 100, credits: 700 });
    expect(await admission.admit(0, running)).toBeUndefined();
    admission.finish(0, { requests: 1, credits: 300 });
    expect(await admission.admit(1, running)).toBeUndefined();
    admission.finish(1, { requests: 1, credits: 300 });
    expect(await admission.admit(2, running)).toBe('budget');
  });

  it('stops a wait when the run stops', async () => {
    let stopping = false;
    const admission = new RowAdmission(needs([30, 30]), { requests: 40, credits: Number.POSITIVE_INFINITY });
    await admission.admit(0, () => stopping);
    const second = admission.admit(1, () => stopping);
    stopping = true;
    admission.wake();
    expect(await second).toBe('stopping');
  });
});
