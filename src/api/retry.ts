/**
 * Retries of transient failures with p-retry: full-jitter exponential backoff (a random wait
 * between 0 and min(cap, base x 2^(n-1))), `Retry-After` honoured in both of its formats when the
 * service sends it, and never a wait longer than a minute inside a run. Permanent outcomes, a bad
 * key, spent credits and a spent quota stop at once. Throttling waits without using up an attempt,
 * up to a bound. The clock, the sleep and the random draw are injected so tests control them.
 */
import pRetry from 'p-retry';
import { ApiError } from './api-error.js';
import { isRetryable } from './outcome-policy.js';

/** The longest the client will wait between two tries; a longer Retry-After fails the call now. */
export const MAX_WAIT_MS = 60_000;
/** Throttled tries that do not use up an attempt, at most. */
export const MAX_THROTTLED_WAITS = 20;

export interface Backoff {
  readonly baseMs: number;
  readonly capMs: number;
  /** Tries in all: the first and the retries. */
  readonly attempts: number;
}

export interface RetryEnvironment {
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
}

export interface RetryEvent {
  readonly error: ApiError;
  readonly attempt: number;
  readonly delayMs: number;
}

/** A random wait in [0, min(cap, base x 2^(attempt-1))]. */
export function fullJitter(attempt: number, backoff: Backoff, random: () => number): number {
  return Math.round(random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (attempt - 1)));
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const REAL_ENVIRONMENT: RetryEnvironment = { sleep: abortableSleep, random: Math.random, now: Date.now };

export async function withRetries<T>(
  attemptOnce: (attempt: number) => Promise<T>,
  options: {
    readonly backoff: Backoff;
    readonly environment: RetryEnvironment;
    readonly signal?: AbortSignal | undefined;
    readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  },
): Promise<T> {
  const { backoff, environment, signal } = options;
  let throttledWaits = 0;
  let attempt = 0;
  /** After a failed try: throw what is final, else wait before the next try. */
  const afterFailure = async (error: unknown, retriesLeft: number): Promise<void> => {
    // Anything that is not an ApiError is a bug or an abort: never retried.
    if (!(error instanceof ApiError) || !isRetryable(error.kind)) throw error;
    const throttled = error.kind === 'throttled';
    if (throttled) throttledWaits++;
    const consumed = attempt - throttledWaits;
    if (
      (throttled && throttledWaits > MAX_THROTTLED_WAITS) ||
      (!throttled && consumed >= backoff.attempts) ||
      retriesLeft === 0
    ) {
      throw error;
    }
    const delayMs = error.retryAfterMs ?? fullJitter(Math.max(1, consumed), backoff, environment.random);
    if (delayMs > MAX_WAIT_MS) throw error;
    options.onRetry?.({ error, attempt, delayMs });
    await environment.sleep(delayMs, signal);
  };
  const retries = backoff.attempts - 1 + MAX_THROTTLED_WAITS;
  // The first try runs outside p-retry: nearly every call succeeds at once, and a run makes
  // thousands, so the common path costs one call, not a retry loop's machinery.
  signal?.throwIfAborted();
  try {
    attempt++;
    return await attemptOnce(attempt);
  } catch (error) {
    await afterFailure(error, retries);
  }
  return pRetry(
    async () => {
      attempt++;
      return attemptOnce(attempt);
    },
    {
      retries: retries - 1,
      minTimeout: 0,
      maxTimeout: 0,
      ...(signal && { signal }),
      onFailedAttempt: ({ error, retriesLeft }) => afterFailure(error, retriesLeft),
    },
  );
}
