/**
 * The error family: each member is an AssetlineError with its own stable code, failureOf turns any
 * failure of a step into the record the manifest keeps (and says when it stops the run), and
 * exitCodeOf turns an error that ends a command into the contract's exit code.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorDetails } from '../../src/api/api-error.js';
import { ResultExpiredError } from '../../src/api/download.js';
import { VideoJobError } from '../../src/api/video-job.js';
import { AssetlineError, EXIT, exitCodeOf, LockedError, UsageError } from '../../src/errors.js';
import { MergeRefusedError } from '../../src/merge/merge-refused.js';
import { RunUnreadableError } from '../../src/report/load-run.js';
import { JournalWriteError } from '../../src/run/journal.js';
import { failureOf } from '../../src/run/step-failure.js';
import { SandboxStateError } from '../../src/sandbox/persist/state-error.js';
import { SandboxError } from '../../src/sandbox/sandbox-error.js';

function apiError(details: Partial<ApiErrorDetails>): ApiError {
  return new ApiError({
    method: 'POST',
    path: '/v1/generate',
    status: 400,
    code: 'invalid_model',
    message: 'no such model',
    requestId: 'req_1',
    attempt: 1,
    kind: 'permanent',
    ambiguous: false,
    ...details,
  });
}

const diskFull = () =>
  Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC', syscall: 'write' });
const noAnswerYet = { requestId: undefined, urlExpiresAt: undefined };

describe('the family', () => {
  it.each([
    [new UsageError('u'), 'UsageError', 'usage'],
    [new LockedError('l'), 'LockedError', 'locked'],
    [new RunUnreadableError('r'), 'RunUnreadableError', 'file-unreadable'],
    [new MergeRefusedError('m'), 'MergeRefusedError', 'merge-refused'],
    [apiError({}), 'ApiError', 'api-request-failed'],
    [new VideoJobError('error', 'v', 'job_1', ['job_1']), 'VideoJobError', 'video-job-failed'],
    [new ResultExpiredError('https://cdn.test/a.png', 404), 'ResultExpiredError', 'result-expired'],
    [new JournalWriteError(diskFull()), 'JournalWriteError', 'journal-unwritable'],
    [new SandboxError('invalid_model', 's'), 'SandboxError', 'sandbox-refused'],
    [new SandboxStateError('.assetline/sandbox', 'is damaged'), 'SandboxStateError', 'sandbox-state-unreadable'],
  ])('%s is an AssetlineError named %s with the code %s', (error, name, code) => {
    expect(error).toBeInstanceOf(AssetlineError);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
  });

  it('keeps what the service said apart from the family code', () => {
    const error = apiError({ status: 402, code: 'insufficient_credits', kind: 'credits' });
    expect(error).toMatchObject({ code: 'api-request-failed', serviceCode: 'insufficient_credits', status: 402 });
    expect(error.details().code).toBe('insufficient_credits');
    expect(error.withAttempt(3)).toMatchObject({ serviceCode: 'insufficient_credits', attempt: 3 });
    expect(new SandboxError('insufficient_credits', 'broke')).toMatchObject({
      code: 'sandbox-refused',
      serviceCode: 'insufficient_credits',
      status: 402,
    });
  });
});

describe('exitCodeOf', () => {
  it.each([
    ['a refused key', apiError({ status: 401, code: 'invalid_api_key', kind: 'auth' }), EXIT.authFailed],
    [
      'no credits left',
      apiError({ status: 402, code: 'insufficient_credits', kind: 'credits' }),
      EXIT.stoppedResumable,
    ],
    ['a spent quota', apiError({ status: 429, code: 'rate_limit_exceeded', kind: 'quota' }), EXIT.stoppedResumable],
    ['a refused request', apiError({}), EXIT.stepsFailed],
    ['a failed video job', new VideoJobError('timeout', 'v', 'job_1', ['job_1']), EXIT.stepsFailed],
    ['an expired result', new ResultExpiredError('https://cdn.test/a.png', 404), EXIT.stepsFailed],
    ['a journal that cannot be written', new JournalWriteError(diskFull()), EXIT.stoppedResumable],
    ['a usage error', new UsageError('u'), EXIT.usage],
    ['a held output folder', new LockedError('l'), EXIT.usage],
    ['a merge of folders that are not the shards of one run', new MergeRefusedError('m'), EXIT.usage],
    ['a damaged sandbox state (run --sandbox)', new SandboxStateError('d', 'is damaged'), EXIT.usage],
    ['a sandbox refusal that escaped its server', new SandboxError('not_found', 's'), EXIT.internal],
    ['an unknown Error', new TypeError('x is undefined'), EXIT.internal],
    ['something thrown that is not an Error', 'boom', EXIT.internal],
  ])('%s exits %i', (_, error, exitCode) => {
    expect(exitCodeOf(error)).toBe(exitCode);
  });
});

describe('failureOf', () => {
  it('a 400 fails the step with what the service said', () => {
    expect(failureOf(apiError({}), noAnswerYet)).toEqual({
      info: { kind: 'permanent', status: 400, code: 'invalid_model', message: 'no such model', requestId: 'req_1' },
      stop: undefined,
      unreached: false,
      requestIds: undefined,
    });
  });

  it.each([
    [401, 'invalid_api_key', 'auth', 'auth'],
    [402, 'insufficient_credits', 'credits', 'credits'],
    [429, 'rate_limit_exceeded', 'quota', 'quota'],
    [429, 'rate_limit_exceeded', 'throttled', 'quota'],
  ] as const)('a %i (%s, %s) stops the run: %s', (status, code, kind, stop) => {
    const failure = failureOf(apiError({ status, code, kind }), noAnswerYet);
    expect(failure.stop).toBe(stop);
    expect(failure.info).toMatchObject({ kind, status, code });
  });

  it('a request with no answer fails the step with our code, and does not stop the run', () => {
    const error = apiError({ status: undefined, code: 'connection_reset', kind: 'transient', ambiguous: true });
    expect(failureOf(error, noAnswerYet)).toMatchObject({
      info: { kind: 'transient', status: undefined, code: 'connection_reset' },
      stop: undefined,
      unreached: false,
    });
  });

  it('a video job that timed out or ended in error keeps every submission', () => {
    const timedOut = failureOf(new VideoJobError('timeout', 'timed out', 'job_2', ['job_1', 'job_2']), noAnswerYet);
    expect(timedOut).toEqual({
      info: { kind: 'permanent', status: undefined, code: 'video_timeout', message: 'timed out', requestId: 'job_2' },
      stop: undefined,
      unreached: false,
      requestIds: ['job_1', 'job_2'],
    });
    expect(failureOf(new VideoJobError('error', 'failed', 'job_1', ['job_1']), noAnswerYet).info.code).toBe(
      'video_error',
    );
  });

  it('an expired result names the answer it came from', () => {
    const error = new ResultExpiredError('https://cdn.test/a.png', 410);
    expect(failureOf(error, { requestId: 'req_9', urlExpiresAt: 1 })).toEqual({
      info: { kind: 'permanent', status: 410, code: 'result_expired', message: error.message, requestId: 'req_9' },
      stop: undefined,
      unreached: false,
      requestIds: undefined,
    });
  });

  it('a full disk fails the step and stops the run; the answer is kept for the next one', () => {
    const failure = failureOf(diskFull(), { requestId: 'req_3', urlExpiresAt: 1 });
    expect(failure.stop).toBe('storage');
    expect(failure.info).toMatchObject({ kind: 'storage', code: 'ENOSPC', requestId: 'req_3' });
    expect(failure.info.message).toMatch(/the disk is full; the answer is kept and the next run downloads it$/);
  });

  it('a file that cannot be written only fails its step', () => {
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/out/a.png' });
    expect(failureOf(denied, noAnswerYet)).toMatchObject({
      info: { kind: 'storage', code: 'EACCES', message: 'could not open /out/a.png: permission denied' },
      stop: undefined,
      unreached: false,
    });
  });

  it('a journal that cannot be written stops the run', () => {
    const error = new JournalWriteError(diskFull());
    expect(failureOf(error, noAnswerYet)).toMatchObject({
      info: { kind: 'storage', code: 'ENOSPC', message: error.message },
      stop: 'storage',
      unreached: false,
    });
  });

  it('anything else is an internal error of the step', () => {
    expect(failureOf(new TypeError('x is undefined'), { requestId: 'req_1', urlExpiresAt: 1 })).toEqual({
      info: {
        kind: 'internal',
        status: undefined,
        code: 'internal_error',
        message: 'x is undefined',
        requestId: undefined,
      },
      stop: undefined,
      unreached: false,
      requestIds: undefined,
    });
  });
});
