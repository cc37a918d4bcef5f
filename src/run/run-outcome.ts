/** What happened to one step instance in a run: the manifest's per-step entry, in memory. */
import type { Operation } from '../catalog/operations.js';
import type { JournalFile } from './journal-records.js';

export type InstanceStatus = 'done' | 'cached' | 'failed' | 'skipped' | 'deferred';

/** `not-selected`: the row is not among those --rows chose (the run did not look at it). */
export type SkipReason = 'when' | 'upstream-failed' | 'upstream-skipped' | 'not-selected';
export type DeferReason =
  | 'credits'
  | 'quota'
  | 'auth'
  | 'budget'
  | 'storage'
  | 'unreachable'
  | 'internal'
  | 'interrupted'
  | 'upstream-deferred';

export interface FailureInfo {
  readonly kind: string;
  readonly status: number | undefined;
  readonly code: string;
  readonly message: string;
  readonly requestId: string | undefined;
}

export interface InstanceOutcome {
  readonly key: string;
  readonly rowKey: string;
  /** The row's output folder (its key made safe). */
  readonly rowFolder: string;
  readonly stepId: string;
  readonly operation: Operation;
  readonly model: string | undefined;
  status: InstanceStatus;
  reason: SkipReason | DeferReason | undefined;
  requestId: string | undefined;
  requestIds: string[];
  attempts: number;
  ambiguous: number;
  polls: number;
  creditsPlanned: number;
  /** Credits the service charged for this step in this run (answers received), whatever became of them. */
  creditsUsed: number;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  files: JournalFile[];
  /** When the result URLs stop answering (answered time + retention). */
  urlExpiresAt: number | undefined;
  error: FailureInfo | undefined;
  /** Results of abandoned video jobs collected at the end. */
  extraFiles: JournalFile[];
  /** The earlier result a redo replaced, where it is kept now (runs/<run-id>/...). */
  replaced: JournalFile[];
}

/**
 * Every field is set here, the optional ones to undefined, so the thousands of outcomes of a run
 * share one shape as they fill in (no spread, no fields added later).
 */
export function newOutcome(
  fields: Pick<InstanceOutcome, 'key' | 'rowKey' | 'rowFolder' | 'stepId' | 'operation' | 'model' | 'creditsPlanned'>,
): InstanceOutcome {
  return {
    key: fields.key,
    rowKey: fields.rowKey,
    rowFolder: fields.rowFolder,
    stepId: fields.stepId,
    operation: fields.operation,
    model: fields.model,
    status: 'deferred',
    reason: undefined,
    requestId: undefined,
    requestIds: [],
    attempts: 0,
    ambiguous: 0,
    polls: 0,
    creditsPlanned: fields.creditsPlanned,
    creditsUsed: 0,
    startedAt: undefined,
    finishedAt: undefined,
    files: [],
    urlExpiresAt: undefined,
    error: undefined,
    extraFiles: [],
    replaced: [],
  };
}
