/**
 * An unreachable service: a request none of whose attempts connected defers its step (nothing was
 * sent or charged), and the run stops after a few such requests in a row.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { connectCause } from '../../src/api/connect-errors.js';
import { Reachability, UNREACHABLE_AFTER } from '../../src/run/reachability.js';
import { failureOf } from '../../src/run/step-failure.js';

const noAnswerYet = { requestId: undefined, urlExpiresAt: undefined };

function noConnection(connectError: string | undefined, ambiguous = false): ApiError {
  return new ApiError({
    method: 'POST',
    path: '/v1/images/generate',
    status: undefined,
    code: ambiguous ? 'connection_reset' : 'connection_refused',
    message: 'could not connect (ECONNREFUSED)',
    requestId: undefined,
    attempt: 4,
    kind: 'transient',
    ambiguous,
    connectError,
  });
}

describe('Reachability', () => {
  it(`stops once, after ${UNREACHABLE_AFTER} requests in a row could not connect`, () => {
    const told: string[] = [];
    const reach = new Reachability((cause) => told.push(cause));
    reach.failed('connection refused');
    reach.failed('connection refused');
    expect(told).toEqual([]);
    reach.failed('host not found');
    reach.failed('connection refused');
    expect(told).toEqual(['host not found']);
    expect(reach.cause).toBe('connection refused');
  });

  it('a request that reached the service starts the count again', () => {
    const told: string[] = [];
    const reach = new Reachability((cause) => told.push(cause), 2);
    reach.failed('connection refused');
    reach.reached();
    reach.failed('connection refused');
    expect(told).toEqual([]);
    reach.failed('connection refused');
    expect(told).toEqual(['connection refused']);
  });

  it('has no cause while every request connected', () => {
    const reach = new Reachability(() => undefined);
    reach.reached();
    expect(reach.cause).toBeUndefined();
  });

  it('refuses a limit below 1, saying what it got', () => {
    expect(() => new Reachability(() => undefined, 0)).toThrow('expected a limit of 1 or more, got 0');
  });
});

describe('failureOf a request that never connected', () => {
  it('is unreached: the step is deferred, the run is not stopped by it alone', () => {
    const failure = failureOf(noConnection('ECONNREFUSED'), noAnswerYet);
    expect(failure.unreached).toBe(true);
    expect(failure.stop).toBeUndefined();
    expect(failure.info.code).toBe('connection_refused');
  });

  it('a reset after sending is not: it may have been done', () => {
    expect(failureOf(noConnection(undefined, true), noAnswerYet).unreached).toBe(false);
  });
});

describe('connectCause', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['bad_port', 'connection refused'],
    ['ENOTFOUND', 'host not found'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ETIMEDOUT', 'connect timed out'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect timed out'],
    ['EWHATEVER', 'EWHATEVER'],
  ])('%s is said as "%s"', (code, words) => {
    expect(connectCause(code)).toBe(words);
  });
});
