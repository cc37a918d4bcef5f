/**
 * The manifest of a run, from what the scheduler and the client recorded. Its rows are made one at
 * a time (from the outcomes of the rows the run started, and on the fly for the rows a stopped run
 * never started), so a run of 100,000 rows is tallied and written without holding its manifest.
 */
import type { Manifest, ManifestHead, ManifestStep, StepCounts } from '../manifest/manifest-schema.js';
import { type CreditTally, newCreditTally, newStepCounts, tallyStep } from '../manifest/manifest-totals.js';
import type { Plan } from '../plan/plan-model.js';
import type { JournalFile, LostRecord } from './journal-records.js';
import type { FailureInfo, InstanceOutcome } from './run-outcome.js';
import type { OutcomeRow, RowEntry } from './scheduler.js';
import { creditsOf } from './settlement.js';

export interface RequestCounters {
  sent: number;
  submits: number;
  polls: number;
  other: number;
  retries: number;
  ambiguous: number;
}

export function newRequestCounters(): RequestCounters {
  return { sent: 0, submits: 0, polls: 0, other: 0, retries: 0, ambiguous: 0 };
}

export interface RunRecord {
  readonly pipeline: string;
  readonly pipelineFile: string;
  /** CheckedPipeline's `version`. */
  readonly pipelineVersion: string;
  /** `--shard`: the shard the run takes. */
  readonly shard: { readonly index: number; readonly count: number } | undefined;
  readonly runId: string;
  readonly startedAt: number;
  readonly finishedAt: number | undefined;
  readonly status: Manifest['status'];
  readonly stoppedBy: string | undefined;
  readonly exitCode: number | undefined;
  readonly sandbox: boolean;
  readonly baseUrl: string;
  readonly rows: readonly RowEntry[];
  readonly outcomes: ReadonlyMap<string, InstanceOutcome>;
  /** The rows after `rows` that the run never started (it stopped first), made when asked for. */
  readonly notStarted: (() => Iterable<OutcomeRow>) | undefined;
  readonly requests: RequestCounters;
  readonly plan: Plan;
  /** What the journal's books say of an instance, across all runs. */
  readonly books: (key: string) => InstanceBooks;
  /** When the service refused a request for the quota in this run. */
  readonly quotaRefusedAt: number | undefined;
}

export interface InstanceBooks {
  readonly paidTotal: number;
  readonly losses: readonly LostRecord[];
}

export interface ManifestRow {
  /** The row's place in the manifest (the HTML report's anchor). */
  readonly index: number;
  readonly key: string;
  readonly folder: string;
  readonly steps: readonly ManifestStep[];
  /** False for a row the run never started. */
  readonly started: boolean;
  /** Credits the cache saved in this row (planned credits of its cached steps). */
  readonly savedByCache: number;
}

/** The totals of a run's rows, tallied one row at a time. */
export interface RowTotals {
  readonly credits: CreditTally;
  readonly steps: StepCounts;
  savedByCache: number;
}

export function newRowTotals(): RowTotals {
  return { credits: newCreditTally(), steps: newStepCounts(), savedByCache: 0 };
}

export function addRow(totals: RowTotals, row: ManifestRow): void {
  totals.savedByCache += row.savedByCache;
  for (const step of row.steps) {
    totals.steps[step.status]++;
    tallyStep(totals.credits, row.key, step);
  }
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The rows a stopped run never started, made on the fly; `indexOf` gives a row's place in the manifest. */
export function* notStartedRows(run: RunRecord, indexOf: (row: OutcomeRow) => number): Generator<ManifestRow> {
  if (!run.notStarted) return;
  for (const row of run.notStarted()) yield rowEntry(indexOf(row), row.key, row.folder, row.outcomes, false, run.books);
}

/** A row's manifest entry from its outcomes and the journal's books. */
export function rowEntry(
  index: number,
  key: string,
  folder: string,
  outcomes: readonly InstanceOutcome[],
  started: boolean,
  books: RunRecord['books'],
): ManifestRow {
  let savedByCache = 0;
  const steps: ManifestStep[] = [];
  for (const outcome of outcomes) {
    // Planned means what this run planned to pay: nothing for what the cache covered.
    const planned = outcome.status === 'cached' || outcome.status === 'skipped' ? 0 : outcome.creditsPlanned;
    if (outcome.status === 'cached') savedByCache += outcome.creditsPlanned;
    steps.push(stepEntry(outcome, planned, books(outcome.key)));
  }
  return { index, key, folder, steps, started, savedByCache };
}

export function manifestHead(run: RunRecord, totals: RowTotals): ManifestHead {
  const { credits } = totals;
  const { plan } = run;
  const quotaUsed = plan.quota.used24h === null ? null : plan.quota.used24h + run.requests.sent;
  const refused = run.quotaRefusedAt !== undefined;
  return {
    schema_version: 1,
    pipeline: run.pipeline,
    pipeline_file: run.pipelineFile,
    pipeline_version: run.pipelineVersion,
    ...(run.shard && { shard: { index: run.shard.index, count: run.shard.count } }),
    run_id: run.runId,
    status: run.status,
    stopped_by: run.stoppedBy ?? null,
    exit_code: run.exitCode ?? null,
    started_at: new Date(run.startedAt).toISOString(),
    finished_at: iso(run.finishedAt),
    duration_ms: run.finishedAt === undefined ? null : run.finishedAt - run.startedAt,
    sandbox: run.sandbox,
    base_url: run.baseUrl,
    totals: {
      credits: {
        planned: plan.credits.total,
        used: credits.used,
        estimated: plan.credits.estimated,
        saved_by_cache: totals.savedByCache,
        paid_total: credits.paid_total,
        lost: credits.lost,
        by_model: credits.by_model,
        by_step: credits.by_step,
        by_row: credits.by_row,
      },
      requests: {
        ...run.requests,
        planned: plan.requests.submits + plan.requests.pollsExpected,
        planned_submits: plan.requests.submits,
        planned_polls: plan.requests.pollsExpected,
      },
      quota: {
        plan: plan.quota.plan,
        limit: plan.quota.limit,
        used_24h: quotaUsed,
        // A 429 for the quota is the service's word: nothing is left, whatever the local count says.
        remaining: refused
          ? 0
          : plan.quota.limit === null
            ? null
            : Math.max(0, plan.quota.limit - (quotaUsed ?? run.requests.sent)),
        refused_at: iso(run.quotaRefusedAt),
      },
      steps: { ...totals.steps },
    },
  };
}

function stepEntry(outcome: InstanceOutcome, planned: number, books: InstanceBooks): ManifestStep {
  const expiresAt = iso(outcome.status === 'done' ? outcome.urlExpiresAt : undefined);
  const file = (f: JournalFile) => fileEntry(f, expiresAt);
  return {
    step: outcome.stepId,
    operation: outcome.operation,
    model: outcome.model ?? null,
    status: outcome.status,
    reason: outcome.reason ?? null,
    request_id: outcome.requestId ?? null,
    request_ids: outcome.requestIds,
    attempts: outcome.attempts,
    ambiguous_attempts: outcome.ambiguous,
    polls: outcome.polls,
    ...creditsEntry(planned, outcome.creditsUsed, books),
    started_at: iso(outcome.startedAt),
    finished_at: iso(outcome.finishedAt),
    duration_ms:
      outcome.startedAt !== undefined && outcome.finishedAt !== undefined
        ? outcome.finishedAt - outcome.startedAt
        : null,
    files: outcome.files.map(file),
    extra_files: outcome.extraFiles.map(file),
    ...(outcome.replaced.length > 0 && { replaced_files: outcome.replaced.map((f) => fileEntry(f, null)) }),
    error: errorEntry(outcome.error),
  };
}

/** A step's `credits` (this run's and the books') and its `losses`. */
export function creditsEntry(
  planned: number,
  used: number,
  books: InstanceBooks,
): Pick<ManifestStep, 'credits' | 'losses'> {
  return {
    credits: { planned, used, paid_total: books.paidTotal, lost: creditsOf(books.losses) },
    losses: books.losses.map((loss) => ({
      credits: loss.credits,
      reason: loss.reason,
      request_id: loss.request_id ?? null,
      at: new Date(loss.t).toISOString(),
    })),
  };
}

export function fileEntry(f: JournalFile, urlExpiresAt: string | null): ManifestStep['files'][number] {
  return {
    path: f.path,
    bytes: f.bytes,
    sha256: f.sha256,
    media_type: f.media_type,
    ...(f.width !== undefined && { width: f.width }),
    ...(f.height !== undefined && { height: f.height }),
    ...(f.duration_seconds !== undefined && { duration_seconds: f.duration_seconds }),
    url: f.url,
    url_expires_at: urlExpiresAt,
    ...(f.run_id !== undefined && { run_id: f.run_id }),
  };
}

export function errorEntry(error: FailureInfo | undefined): ManifestStep['error'] {
  return error
    ? {
        kind: error.kind,
        status: error.status ?? null,
        code: error.code,
        message: error.message,
        request_id: error.requestId ?? null,
      }
    : null;
}
