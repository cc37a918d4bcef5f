/**
 * A manifest brought up to date from a journal (the run died between two manifest writes), or
 * made from the journal alone (it died before the first). The totals are tallied again from the
 * steps, so a report of a dead run adds up.
 */
import path from 'node:path';
import type { Manifest, ManifestStep } from '../manifest/manifest-schema.js';
import { countSteps, tallyCredits } from '../manifest/manifest-totals.js';
import { safeSegment } from '../paths/safe-segment.js';
import { creditsEntry, errorEntry, fileEntry, type InstanceBooks } from '../run/build-manifest.js';
import type { JournalRun, JournalStep } from './journal-run.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export function applyJournal(base: Manifest, journal: JournalRun, stillRunning: boolean): Manifest {
  const manifest = structuredClone(base);
  const rows = new Map(manifest.rows.map((row) => [row.key, row]));
  let savedByCache = manifest.totals.credits.saved_by_cache;
  let addedPlanned = 0;
  for (const step of journal.steps.values()) {
    let row = rows.get(step.rowKey);
    if (!row) {
      row = { key: step.rowKey, folder: folderOf(step), steps: [] };
      rows.set(step.rowKey, row);
      manifest.rows.push(row);
    }
    const index = row.steps.findIndex((entry) => entry.step === step.stepId);
    const before = index >= 0 ? row.steps[index] : undefined;
    if (before?.status === 'cached' && step.status === 'cached') continue;
    const entry = stepFromJournal(step, before, journal.books(step.key));
    if (step.status === 'cached' && before?.status !== 'cached') savedByCache += step.work?.creditsPlanned ?? 0;
    if (!before) addedPlanned += entry.credits.planned;
    if (index >= 0) row.steps[index] = entry;
    else row.steps.push(entry);
  }
  const credits = tallyCredits(manifest.rows);
  const totals = manifest.totals;
  totals.credits = {
    ...totals.credits,
    planned: totals.credits.planned + addedPlanned,
    used: credits.used,
    saved_by_cache: savedByCache,
    paid_total: credits.paid_total,
    lost: credits.lost,
    by_model: credits.by_model,
    by_step: credits.by_step,
    by_row: credits.by_row,
  };
  totals.steps = countSteps(manifest.rows);
  if (!stillRunning) manifest.status = 'interrupted';
  return manifest;
}

export function manifestFromJournal(journal: JournalRun, pipeline: string, stillRunning: boolean): Manifest {
  const empty: Manifest = {
    schema_version: 1,
    pipeline,
    pipeline_file: '',
    run_id: journal.runId ?? 'unknown',
    status: stillRunning ? 'running' : 'interrupted',
    stopped_by: null,
    exit_code: null,
    started_at: iso(journal.startedAt ?? journal.lastRecordAt ?? 0) ?? '',
    finished_at: null,
    duration_ms: null,
    sandbox: false,
    base_url: '',
    totals: {
      credits: {
        planned: 0,
        used: 0,
        estimated: true,
        saved_by_cache: 0,
        by_model: {},
        by_step: {},
        by_row: {},
      },
      requests: { sent: 0, planned: 0, submits: 0, polls: 0, other: 0, retries: 0, ambiguous: 0 },
      quota: { plan: 'unknown', limit: null, used_24h: null, remaining: null },
      steps: { done: 0, failed: 0, skipped: 0, deferred: 0, cached: 0 },
    },
    rows: [],
  };
  const manifest = applyJournal(empty, journal, stillRunning);
  const ambiguous = [...journal.steps.values()].reduce((sum, step) => sum + step.ambiguous, 0);
  manifest.totals.requests = {
    ...manifest.totals.requests,
    sent: journal.submits + ambiguous,
    submits: journal.submits,
    ambiguous,
  };
  return manifest;
}

function stepFromJournal(step: JournalStep, before: ManifestStep | undefined, books: InstanceBooks): ManifestStep {
  const planned = step.status === 'cached' ? 0 : (step.work?.creditsPlanned ?? before?.credits.planned ?? 0);
  const used = step.creditsUsed;
  const startedAt = step.startedAt ?? before?.started_at ?? null;
  return {
    step: step.stepId,
    operation: step.work?.operation ?? before?.operation ?? 'unknown',
    model: step.work?.model ?? before?.model ?? null,
    status: step.status,
    reason: step.reason ?? null,
    request_id: step.requestId ?? step.requestIds.at(-1) ?? null,
    request_ids: step.requestIds,
    attempts: Math.max(before?.attempts ?? 0, step.requestIds.length, step.requestId === undefined ? 0 : 1),
    ambiguous_attempts: Math.max(before?.ambiguous_attempts ?? 0, step.ambiguous),
    polls: before?.polls ?? 0,
    ...creditsEntry(planned, used, books),
    started_at: typeof startedAt === 'number' ? iso(startedAt) : startedAt,
    finished_at: iso(step.finishedAt),
    duration_ms:
      step.startedAt !== undefined && step.finishedAt !== undefined ? step.finishedAt - step.startedAt : null,
    files: step.files.map((file) => fileEntry(file, null)),
    extra_files: before?.extra_files ?? [],
    error: errorEntry(
      step.failure && {
        kind: step.failure.kind,
        status: step.failure.status,
        code: step.failure.code,
        message: step.failure.message,
        requestId: step.failure.request_id,
      },
    ),
  };
}

/** The row's folder as the runner names it: where its files are, else its key made safe. */
function folderOf(step: JournalStep): string {
  const first = step.files[0];
  return first ? path.posix.dirname(first.path) : safeSegment(step.rowKey);
}
