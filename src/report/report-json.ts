/**
 * `report --json`: the run's report as one object, for scripts (and the library's `report()`).
 * The same figures as the text report, in the manifest's names; rows are left to the manifest.
 */
import type { LoadedRun } from './load-run.js';
import type { CostLine, RunSummary, StepRef } from '../manifest/manifest-summary.js';

function costs(lines: readonly CostLine[]) {
  return Object.fromEntries(lines.map((line) => [line.name, { planned: line.planned, used: line.used }]));
}

function stepRef(ref: StepRef) {
  return { row: ref.row, step: ref.step.step, model: ref.step.model, request_id: ref.step.request_id };
}

/** A run's credit figures as `report --json` and `merge --json` print them. */
export function creditFigures(credits: RunSummary['credits']) {
  return {
    planned: credits.planned,
    used: credits.used,
    estimated: credits.estimated,
    saved_by_cache: credits.savedByCache,
    paid_total: credits.paidTotal ?? null,
    lost: credits.lost,
  };
}

export function reportJson(loaded: LoadedRun, summary: RunSummary, html: string | null) {
  const { manifest } = summary;
  return {
    pipeline: manifest.pipeline,
    run_id: manifest.run_id,
    status: manifest.status,
    stopped_by: manifest.stopped_by,
    exit_code: manifest.exit_code,
    started_at: manifest.started_at,
    finished_at: manifest.finished_at,
    folder: loaded.dir,
    /** Where the figures come from: `manifest`, `journal`, or `manifest and journal`. */
    source: loaded.source,
    notes: loaded.notes,
    rows: summary.rows,
    steps: summary.counts,
    credits: {
      ...creditFigures(summary.credits),
      by_model: costs(summary.credits.byModel),
      by_step: costs(summary.credits.byStep),
    },
    requests: summary.requests,
    quota: summary.quota,
    failures: summary.failures.map((ref) => ({ ...stepRef(ref), error: ref.step.error })),
    ambiguous: summary.ambiguous.map((ref) => ({ ...stepRef(ref), ambiguous_attempts: ref.step.ambiguous_attempts })),
    lost: summary.lost.map((ref) => ({ ...stepRef(ref), losses: ref.step.losses ?? [] })),
    reasons: Object.fromEntries(summary.reasons),
    html,
  };
}

export type ReportJson = ReturnType<typeof reportJson>;
