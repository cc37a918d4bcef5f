/**
 * The error catalogue: every failure assetline makes on purpose is an AssetlineError with a stable
 * code and the exit code from the contract that it means when it ends a command. Core code throws
 * these; the top-level catch in cli.ts turns one into an exit status through exitCodeOf, and a
 * failed step becomes its manifest record through failureOf (run/step-failure.ts). Anything else
 * that escapes is a bug and exits with INTERNAL.
 */

export const EXIT = {
  ok: 0,
  stepsFailed: 1,
  usage: 2,
  invalidPipeline: 2,
  preflightRefused: 3,
  stoppedResumable: 4,
  authFailed: 5,
  /** Not in the contract's table: an unexpected crash (a bug). EX_SOFTWARE from sysexits.h. */
  internal: 70,
  sigint: 130,
  sigterm: 143,
} as const;

/** One code per class: what kind of failure it is, whatever the message or the service said. */
export type ErrorCode =
  /** UsageError: a flag, an argument or the environment is wrong; nothing was sent. */
  | 'usage'
  /** PipelineInvalidError: the library's plan() or run() of a pipeline that does not validate. */
  | 'pipeline-invalid'
  /** SandboxUnavailableError: the sandbox was asked for and one of its optional packages is missing. */
  | 'sandbox-unavailable'
  /** LockedError: another run holds the output folder. */
  | 'locked'
  /** RunUnreadableError: a report was asked of something that is not a readable run. */
  | 'file-unreadable'
  /** MergeRefusedError: the folders given to merge are not the shards of one run (nothing was written). */
  | 'merge-refused'
  /** ApiError: a request to the service failed; its serviceCode says how. */
  | 'api-request-failed'
  /** VideoJobError: a video job ended in `error` or timed out. */
  | 'video-job-failed'
  /** ResultExpiredError: a result URL stopped answering before its file was saved. */
  | 'result-expired'
  /** JournalWriteError: the run journal could not be written. */
  | 'journal-unwritable'
  /** SandboxError: the sandbox refuses a request (it becomes the answer, never an exit). */
  | 'sandbox-refused'
  /** SandboxStateError: the embedded sandbox's saved state cannot be read or written. */
  | 'sandbox-state-unreadable';

export class AssetlineError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, exitCode: number) {
    super(message);
    this.name = 'AssetlineError';
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** The exit status of a command that ended with this error: a bug when it is not one of ours. */
export function exitCodeOf(error: unknown): number {
  return error instanceof AssetlineError ? error.exitCode : EXIT.internal;
}

export class UsageError extends AssetlineError {
  constructor(message: string) {
    super('usage', message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** Another run holds the output folder (exit 2: nothing was sent). */
export class LockedError extends AssetlineError {
  constructor(message: string) {
    super('locked', message, EXIT.usage);
    this.name = 'LockedError';
  }
}
