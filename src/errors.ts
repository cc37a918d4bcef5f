/**
 * The error catalogue: every failure the CLI reports on purpose has a stable code and an exit code
 * from the contract. Core code throws these; only the top-level catch in cli.ts turns them into an
 * exit status. Anything else that escapes is a bug and exits with INTERNAL.
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

export type ErrorCode = 'usage' | 'pipeline-invalid' | 'file-unreadable' | 'locked' | 'sandbox-unavailable';

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
