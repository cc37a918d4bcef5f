/**
 * The manifest's credit tables and step counts, from its rows: one tally for the runner, which
 * writes manifests, and for the report, which brings a dead run's manifest up to date.
 */
import type { Manifest, StepCounts } from './manifest-schema.js';

type CreditTable = Record<string, { planned: number; used: number }>;

export interface CreditTally {
  used: number;
  paid_total: number;
  lost: number;
  by_model: CreditTable;
  by_step: CreditTable;
  by_row: CreditTable;
}

export function tallyCredits(rows: Manifest['rows']): CreditTally {
  const tally: CreditTally = { used: 0, paid_total: 0, lost: 0, by_model: {}, by_step: {}, by_row: {} };
  const add = (table: CreditTable, key: string, planned: number, used: number) => {
    const entry = (table[key] ??= { planned: 0, used: 0 });
    entry.planned += planned;
    entry.used += used;
  };
  for (const row of rows) {
    for (const step of row.steps) {
      const { planned, used } = step.credits;
      tally.used += used;
      tally.paid_total += step.credits.paid_total ?? used;
      tally.lost += step.credits.lost ?? 0;
      add(tally.by_model, step.model ?? step.operation, planned, used);
      add(tally.by_step, step.step, planned, used);
      add(tally.by_row, row.key, planned, used);
    }
  }
  return tally;
}

export function countSteps(rows: Manifest['rows']): StepCounts {
  const counts: StepCounts = { done: 0, failed: 0, skipped: 0, deferred: 0, cached: 0 };
  for (const row of rows) for (const step of row.steps) counts[step.status]++;
  return counts;
}
