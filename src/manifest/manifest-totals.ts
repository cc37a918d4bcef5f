/**
 * The manifest's credit tables and step counts, from its rows: one tally for the runner, which
 * writes manifests, and for the report, which brings a dead run's manifest up to date. The tally
 * takes one step at a time, so a run's manifest can be tallied while its rows are made on the fly.
 */
import type { Manifest, ManifestStep, StepCounts } from './manifest-schema.js';

type CreditTable = Record<string, { planned: number; used: number }>;

export interface CreditTally {
  used: number;
  paid_total: number;
  lost: number;
  by_model: CreditTable;
  by_step: CreditTable;
  by_row: CreditTable;
}

export function newCreditTally(): CreditTally {
  return { used: 0, paid_total: 0, lost: 0, by_model: newTable(), by_step: newTable(), by_row: newTable() };
}

/**
 * A table keyed by names from the data (row keys, from a sheet or a shard's manifest): without a
 * prototype, a key such as `__proto__` is a row like any other, not a way into Object.prototype.
 */
function newTable(): CreditTable {
  return Object.create(null) as CreditTable;
}

function add(table: CreditTable, key: string, planned: number, used: number): void {
  const entry = (table[key] ??= { planned: 0, used: 0 });
  entry.planned += planned;
  entry.used += used;
}

/** Adds one step of the row `rowKey` to the tally. */
export function tallyStep(tally: CreditTally, rowKey: string, step: ManifestStep): void {
  const { planned, used } = step.credits;
  tally.used += used;
  tally.paid_total += step.credits.paid_total ?? used;
  tally.lost += step.credits.lost ?? 0;
  // A step `when:` skipped has no model (its parameters were never rendered): no line of its own.
  if (step.model !== null || step.status !== 'skipped')
    add(tally.by_model, step.model ?? step.operation, planned, used);
  add(tally.by_step, step.step, planned, used);
  add(tally.by_row, rowKey, planned, used);
}

export function tallyCredits(rows: Manifest['rows']): CreditTally {
  const tally = newCreditTally();
  for (const row of rows) for (const step of row.steps) tallyStep(tally, row.key, step);
  return tally;
}

export function newStepCounts(): StepCounts {
  return { done: 0, failed: 0, skipped: 0, deferred: 0, cached: 0 };
}

export function countSteps(rows: Manifest['rows']): StepCounts {
  const counts = newStepCounts();
  for (const row of rows) for (const step of row.steps) counts[step.status]++;
  return counts;
}
