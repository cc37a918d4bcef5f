/**
 * What a step's failure becomes, decided here and nowhere else: the record the journal and the
 * manifest keep (kind, HTTP status, code, message, request_id), and whether it stops the whole run
 * (the step is then deferred, not failed). The codes users see in manifests are the service's own,
 * or one of ours: video_timeout, video_error, result_expired, an errno code, internal_error.
 */
import { ApiError } from '../api/api-error.js';
import { ResultExpiredError } from '../api/download.js';
import type { OutcomeKind } from '../api/outcome-policy.js';
import { VideoJobError } from '../api/video-job.js';
import { affectsWholeDisk, describeStorageError, storageCode } from '../storage-errors.js';
import { JournalWriteError } from './journal.js';
import type { FailureInfo, InstanceOutcome } from './run-outcome.js';

/** What stops the whole run, if an instance met it. */
export type StopSignal = 'credits' | 'quota' | 'auth' | 'storage' | undefined;

export interface StepFailure {
  readonly info: FailureInfo;
  /** Set when the run stops starting work on this failure. */
  readonly stop: StopSignal;
  /**
   * Set when no attempt reached the service (it could not connect): nothing was sent or charged,
   * so the step is deferred to a later run, not failed.
   */
  readonly unreached: boolean;
  /** Every submission of a video step, oldest first, when the failure knows them. */
  readonly requestIds: readonly string[] | undefined;
}

/** API outcomes that stop the run: the step is deferred, not failed. */
const STOPS: Readonly<Record<OutcomeKind, StopSignal>> = {
  permanent: undefined,
  transient: undefined,
  credits: 'credits',
  quota: 'quota',
  auth: 'auth',
  // A 429 that kept coming past every wait: the service will not take more now.
  throttled: 'quota',
};

/**
 * `outcome` is the step's progress so far: the request_id of an answer it already has, and whether
 * that answer is kept for the next run to download.
 */
export function failureOf(error: unknown, outcome: Pick<InstanceOutcome, 'requestId' | 'urlExpiresAt'>): StepFailure {
  if (error instanceof ApiError)
    return {
      info: {
        kind: error.kind,
        status: error.status,
        code: error.serviceCode,
        message: error.serviceMessage,
        requestId: error.requestId,
      },
      stop: STOPS[error.kind],
      unreached: error.connectError !== undefined,
      requestIds: undefined,
    };
  if (error instanceof VideoJobError)
    return {
      info: {
        kind: 'permanent',
        status: undefined,
        code: error.reason === 'timeout' ? 'video_timeout' : 'video_error',
        message: error.message,
        requestId: error.requestId,
      },
      stop: undefined,
      unreached: false,
      requestIds: error.requestIds,
    };
  if (error instanceof ResultExpiredError)
    return {
      info: {
        kind: 'permanent',
        status: error.status,
        code: 'result_expired',
        message: error.message,
        requestId: outcome.requestId,
      },
      stop: undefined,
      unreached: false,
      requestIds: undefined,
    };
  if (error instanceof JournalWriteError) {
    // Nothing more can be journaled: the run stops, whatever the file system said.
    const code = storageCode(error.cause);
    return {
      info: code === undefined ? internalFailure(error) : storageFailure(code, error.message, outcome),
      stop: 'storage',
      unreached: false,
      requestIds: undefined,
    };
  }
  const code = storageCode(error);
  if (code !== undefined) {
    const kept = outcome.urlExpiresAt === undefined ? '' : '; the answer is kept and the next run downloads it';
    return {
      info: storageFailure(code, `${describeStorageError(error)}${kept}`, outcome),
      // A full or read-only disk fails every later write too.
      stop: affectsWholeDisk(code) ? 'storage' : undefined,
      unreached: false,
      requestIds: undefined,
    };
  }
  return { info: internalFailure(error), stop: undefined, unreached: false, requestIds: undefined };
}

function storageFailure(code: string, message: string, outcome: Pick<InstanceOutcome, 'requestId'>): FailureInfo {
  return { kind: 'storage', status: undefined, code, message, requestId: outcome.requestId };
}

/** Anything else is a bug: the step fails with what the error says, and the run goes on. */
function internalFailure(error: unknown): FailureInfo {
  return {
    kind: 'internal',
    status: undefined,
    code: 'internal_error',
    message: error instanceof Error ? error.message : String(error),
    requestId: undefined,
  };
}
