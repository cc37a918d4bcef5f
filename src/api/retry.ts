/**
 * Retries of transient failures, run by p-retry: it makes the tries, and ends the call at once on
 * what the outcome table says cannot succeed (an AbortError) and when the run's signal aborts.
 * The waits between tries are ours: full-jitter exponential backoff (a random wait between 0 and
 * min(cap, base x 2^(n-1))), or `Retry-After` in both of its formats when the service sends it,
 * never longer than a minute inside a run. Throttling waits without using up a try, up to a bound.
 * The clock, the sleep and the random draw are injected so tests control them.
 */
import pRetry, { AbortError } from 'p-retry';
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

export interface RetryOptions {
  readonly backoff: Backoff;
  readonly environment: RetryEnvironment;
  /** The run's: an abort ends the call at once, whether a try or a wait is under way. */
  readonly signal?: AbortSignal | undefined;
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
}

/**
 * The wait before the next try after `error`, or undefined when there is no next try: its kind has
 * used up its tries (throttled ones count apart), or the service asks for a longer wait than a run
 * makes. `attempt` counts every try so far, this one included.
 */
function nextWait(
  error: ApiError,
  attempt: number,
  throttledWaits: number,
  backoff: Backoff,
  random: () => number,
): number | undefined {
  const throttled = error.kind === 'throttled';
  const consumed = attempt - throttledWaits;
  if (throttled ? throttledWaits > MAX_THROTTLED_WAITS : consumed >= backoff.attempts) return undefined;
  const delayMs = error.retryAfterMs ?? fullJitter(Math.max(1, consumed), backoff, random);
  return delayMs > MAX_WAIT_MS ? undefined : delayMs;
}

export async function withRetries<T>(attemptOnce: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { backoff, environment, signal } = options;
  let throttledWaits = 0;
  /** The wait before the next try, chosen when the last one failed. */
  let waitMs = 0;
  /** A try that got its answer: returned even if the run aborts in the same instant (it may be paid for). */
  let answered: { readonly value: T } | undefined;
  try {
    return await pRetry(
      async (attempt) => {
        try {
          if (waitMs > 0) await environment.sleep(waitMs, signal);
          const value = await attemptOnce(attempt);
          answered = { value };
          return value;
        } catch (error) {
          // The outcome table decides: only what may succeed if sent again goes back to p-retry.
          // A permanent answer, a refusal, the run's stop gate (RunStopping from the caller's
          // slot), an abort or a bug ends the call now, with no callback.
          if (error instanceof ApiError && isRetryable(error.kind)) throw error;
          throw new AbortError(error as Error);
        }
      },
      {
        // Every retry there may be: the step's own and the throttled ones (nextWait keeps each to its bound).
        retries: backoff.attempts - 1 + MAX_THROTTLED_WAITS,
        // p-retry's own wait (minTimeout x factor^n, at random x1 to x2) can neither draw full
        // jitter nor honour a Retry-After: it is off, and the try waits the one chosen below.
        minTimeout: 0,
        ...(signal && { signal }),
        onFailedAttempt: ({ error }) => {
          if (error instanceof ApiError && error.kind === 'throttled') throttledWaits++;
        },
        shouldRetry: ({ error, attemptNumber }) => {
          // Anything but an ApiError here is the run's abort, met by p-retry between tries.
          if (!(error instanceof ApiError)) return false;
          const delayMs = nextWait(error, attemptNumber, throttledWaits, backoff, environment.random);
          if (delayMs === undefined) return false;
          waitMs = delayMs;
          options.onRetry?.({ error, attempt: attemptNumber, delayMs });
          return true;
        },
      },
    );
  } catch (error) {
    // p-retry looks at the signal once more after a try succeeds.
    if (answered) return answered.value;
    // An abort ends the call with the run's own reason (p-retry wraps a reason that is not an Error).
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}
