/**
 * What the client reports as it works, for the runner to log, to add to the request ledger, and
 * to record in the journal. Nothing here carries the key.
 */
export type RequestKind = 'submit' | 'poll' | 'other';

export interface RequestSent {
  readonly method: string;
  readonly path: string;
  readonly kind: RequestKind;
  readonly attempt: number;
  readonly at: number;
  readonly status: number | undefined;
  readonly idempotencyKey: string | undefined;
}

export interface AmbiguousAttempt {
  readonly method: string;
  readonly path: string;
  readonly attempt: number;
  readonly idempotencyKey: string | undefined;
  readonly reason: string;
}

export interface RetryScheduled {
  readonly method: string;
  readonly path: string;
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
}

export interface ServiceRefused {
  /** The quota is spent (429), the credits are (402), or the key is refused (401). */
  readonly kind: 'quota' | 'credits' | 'auth';
  readonly at: number;
  readonly path: string;
  /** How long the service said to wait, when it said. */
  readonly retryAfterMs: number | undefined;
}

export interface Unreachable {
  readonly method: string;
  readonly path: string;
  /** What every attempt met, in words: "connection refused", "host not found"... */
  readonly cause: string;
}

export interface ClientEvents {
  /**
   * The service refused a request in a way every other request would meet too. Told the moment
   * the answer is read, before the error reaches the caller, so a run stops sending at once.
   */
  serviceRefused?(event: ServiceRefused): void;
  /** A request reached the service (or may have): it counts against the daily quota. */
  requestSent?(event: RequestSent): void;
  /** Sent, but no answer came: the service may have done (and charged) the work. */
  ambiguous?(event: AmbiguousAttempt): void;
  retry?(event: RetryScheduled): void;
  /** A request ended without any of its attempts connecting: nothing reached the service. */
  unreachable?(event: Unreachable): void;
}
