/**
 * What an outcome means, as data. Read top to bottom; the first rule that matches decides.
 * Only `transient` and `throttled` outcomes are retried; everything else fails the call at once.
 */

export type OutcomeKind =
  /** The request is wrong (400, 422, other 4xx): sending it again cannot succeed. */
  | 'permanent'
  /** 401: the key is missing, malformed or revoked. Nothing will work: end the run. */
  | 'auth'
  /** 402: the balance is too low. Stop dispatching new work; resumable later. */
  | 'credits'
  /** 429 with a long Retry-After, or none on a create call: the daily quota is spent. Stop new work. */
  | 'quota'
  /** 429 with Retry-After of 60 s or less, or none on a status poll: polling too fast. Wait, go on. */
  | 'throttled'
  /** 408, 5xx, connection resets, timeouts: may succeed if sent again. */
  | 'transient';

export interface Outcome {
  /** HTTP status, or undefined when no answer came (connection error, timeout). */
  readonly status: number | undefined;
  /** A status poll: without Retry-After its 429 is throttling, not the quota. */
  readonly poll: boolean;
  readonly retryAfterMs: number | undefined;
}

/** A Retry-After this short on a 429 means "slow down", not "come back tomorrow". */
export const THROTTLE_MAX_RETRY_AFTER_MS = 60_000;

interface Rule {
  readonly kind: OutcomeKind;
  readonly matches: (outcome: Outcome) => boolean;
  readonly why: string;
}

export const OUTCOME_RULES: readonly Rule[] = [
  {
    kind: 'transient',
    matches: (o) => o.status === undefined,
    why: 'no answer: reset, refused or timed out; the request may be sent again (with its Idempotency-Key)',
  },
  {
    kind: 'auth',
    matches: (o) => o.status === 401,
    why: 'invalid_api_key: fix the key; every other request would fail the same way',
  },
  {
    kind: 'credits',
    matches: (o) => o.status === 402,
    why: 'insufficient_credits: buy credits; the run stops new work and can resume',
  },
  {
    kind: 'throttled',
    matches: (o) => o.status === 429 && o.poll && (o.retryAfterMs ?? 0) <= THROTTLE_MAX_RETRY_AFTER_MS,
    why: 'polling too often: wait and poll again (a poll told to come back in hours has hit the quota: below)',
  },
  {
    kind: 'throttled',
    matches: (o) => o.status === 429 && o.retryAfterMs !== undefined && o.retryAfterMs <= THROTTLE_MAX_RETRY_AFTER_MS,
    why: 'a short Retry-After is throttling, not the daily quota',
  },
  {
    kind: 'quota',
    matches: (o) => o.status === 429,
    why: 'rate_limit_exceeded: the daily quota is spent; the run stops new work and can resume',
  },
  { kind: 'transient', matches: (o) => o.status === 408, why: 'request timeout on the server side' },
  {
    kind: 'transient',
    matches: (o) => o.status !== undefined && o.status >= 500,
    why: 'a server error; it may be gone on the next try',
  },
  { kind: 'permanent', matches: () => true, why: 'a 4xx answer: the request itself is wrong' },
];

export function classify(outcome: Outcome): OutcomeKind {
  return (OUTCOME_RULES.find((rule) => rule.matches(outcome)) as Rule).kind;
}

export function isRetryable(kind: OutcomeKind): boolean {
  return kind === 'transient' || kind === 'throttled';
}
