/**
 * A run's story read back from its journal, for a report when the manifest is missing (a crash
 * before its first write) or behind (a manifest still saying "running" for a run that died). Only
 * reads: the journal is never compacted or rewritten here.
 *
 * The journal records the side effects of the latest run after its `run` record: intents,
 * submissions, answers, downloads and failures. Work that needed none of them (results already
 * in place) and work the run never reached leave no trace, so a report from the journal alone
 * lists only what the run touched.
 */
import type { InstanceBooks } from '../run/build-manifest.js';
import { parseJournalLine, replay } from '../run/journal.js';
import type { InstanceWork, JournalFile, JournalRecord } from '../run/journal-records.js';
import { paidTotal } from '../run/settlement.js';

export type JournalStepStatus = 'done' | 'cached' | 'failed' | 'deferred';

export interface JournalStep {
  readonly key: string;
  readonly rowKey: string;
  readonly stepId: string;
  work: InstanceWork | undefined;
  status: JournalStepStatus;
  /** Why deferred: a stop by the service, or 'interrupted' for work begun and not finished. */
  reason: 'credits' | 'quota' | 'auth' | 'interrupted' | undefined;
  requestId: string | undefined;
  requestIds: string[];
  /** Credits the service reported for an answer this run received. */
  creditsUsed: number;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  files: readonly JournalFile[];
  ambiguous: number;
  failure: Extract<JournalRecord, { type: 'failed' }> | undefined;
}

export interface JournalRun {
  readonly runId: string | undefined;
  readonly startedAt: number | undefined;
  /** The time of the last record: about when the run stopped, if it died. */
  readonly lastRecordAt: number | undefined;
  /** Instances this run touched, in the order it first touched them. */
  readonly steps: ReadonlyMap<string, JournalStep>;
  readonly submits: number;
  /** Each instance's books across every run the journal remembers (paid, lost). */
  readonly books: (key: string) => InstanceBooks;
}

const STOPS: Readonly<Record<string, JournalStep['reason']>> = { credits: 'credits', quota: 'quota', auth: 'auth' };

export function readJournalRun(text: string): JournalRun {
  const records = text.split('\n').flatMap((line) => {
    const record = parseJournalLine(line);
    return record ? [record] : [];
  });
  const start = records.findLastIndex((record) => record.type === 'run');
  const runRecord = start >= 0 ? (records[start] as Extract<JournalRecord, { type: 'run' }>) : undefined;
  const steps = new Map<string, JournalStep>();
  let submits = 0;
  let lastRecordAt: number | undefined;
  for (const record of records.slice(start + 1)) {
    if (record.type === 'run') continue;
    lastRecordAt = Math.max(lastRecordAt ?? 0, record.t);
    let step = steps.get(record.key);
    if (!step) {
      step = newStep(record.key);
      steps.set(record.key, step);
    }
    switch (record.type) {
      case 'intent':
        // Work begun (again): what came before belongs to an earlier attempt.
        Object.assign(step, newStep(record.key), { startedAt: record.t });
        step.work = record.operation === undefined ? undefined : workOf(record);
        break;
      case 'submitted':
        step.requestIds.push(record.request_id);
        submits++;
        break;
      case 'answered':
        step.requestId = record.request_id;
        step.creditsUsed = record.credits_used ?? step.work?.creditsPlanned ?? 0;
        if (step.requestIds.length === 0) submits++;
        break;
      case 'downloaded':
        // A download with no intent in this run reuses earlier work: nothing was paid this run.
        step.status = step.startedAt === undefined ? 'cached' : 'done';
        step.reason = undefined;
        step.files = record.files;
        step.finishedAt = record.t;
        break;
      case 'failed':
        step.failure = record;
        step.status = STOPS[record.kind] ? 'deferred' : 'failed';
        step.reason = STOPS[record.kind];
        step.finishedAt = record.t;
        step.creditsUsed = 0;
        break;
      case 'ambiguous':
        step.ambiguous++;
        break;
    }
  }
  const state = replay(text);
  const books = (key: string): InstanceBooks => {
    const history = state.instances.get(key);
    return { paidTotal: paidTotal(history), losses: history?.losses ?? [] };
  };
  return { runId: runRecord?.run_id, startedAt: runRecord?.t, lastRecordAt, steps, submits, books };
}

function newStep(key: string): JournalStep {
  const slash = key.lastIndexOf('/');
  return {
    key,
    rowKey: key.slice(0, slash),
    stepId: key.slice(slash + 1),
    work: undefined,
    status: 'deferred',
    reason: 'interrupted',
    requestId: undefined,
    requestIds: [],
    creditsUsed: 0,
    startedAt: undefined,
    finishedAt: undefined,
    files: [],
    ambiguous: 0,
    failure: undefined,
  };
}

function workOf(record: Extract<JournalRecord, { type: 'intent' }>): InstanceWork {
  return {
    operation: record.operation ?? 'unknown',
    model: record.model ?? null,
    creditsPlanned: record.credits_planned ?? 0,
  };
}
