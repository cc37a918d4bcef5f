/**
 * The one error the client throws: what was called, what came back, and what it means. Its
 * message is one line a person can act on; the key is never in it (service text is scrubbed).
 */
import type { OutcomeKind } from './outcome-policy.js';

export interface ApiErrorDetails {
  readonly method: string;
  readonly path: string;
  /** HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** The service's error code, or ours: connection_reset, timeout, connection_refused, unexpected_response... */
  readonly code: string;
  readonly message: string;
  readonly requestId: string | undefined;
  readonly attempt: number;
  readonly kind: OutcomeKind;
  /** The request may have reached the service and been done (and charged) though no answer came. */
  readonly ambiguous: boolean;
  readonly retryAfterMs?: number | undefined;
}

export class ApiError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly code: string;
  readonly serviceMessage: string;
  readonly requestId: string | undefined;
  readonly attempt: number;
  readonly kind: OutcomeKind;
  readonly ambiguous: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(details: ApiErrorDetails) {
    super(describe(details));
    this.name = 'ApiError';
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.code = details.code;
    this.serviceMessage = details.message;
    this.requestId = details.requestId;
    this.attempt = details.attempt;
    this.kind = details.kind;
    this.ambiguous = details.ambiguous;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** The same error, seen on a later attempt. */
  withAttempt(attempt: number): ApiError {
    return new ApiError({ ...this.details(), attempt });
  }

  details(): ApiErrorDetails {
    return {
      method: this.method,
      path: this.path,
      status: this.status,
      code: this.code,
      message: this.serviceMessage,
      requestId: this.requestId,
      attempt: this.attempt,
      kind: this.kind,
      ambiguous: this.ambiguous,
      retryAfterMs: this.retryAfterMs,
    };
  }

  override toString(): string {
    return this.message;
  }
}

const ADVICE: Readonly<Record<OutcomeKind, string>> = {
  permanent: 'the request was refused; fix it before running again',
  auth: 'check ASSETLINE_API_KEY',
  credits: 'buy credits, then run again: finished steps are kept',
  quota: 'the daily request quota is spent; run again later: finished steps are kept',
  throttled: 'the service asked to slow down',
  transient: 'a temporary failure',
};

function describe(d: ApiErrorDetails): string {
  const answer = d.status === undefined ? 'no answer' : `HTTP ${d.status}`;
  const request = d.requestId ? `, request ${d.requestId}` : '';
  return `${d.method} ${d.path}: ${answer} ${d.code}: ${d.message} (${ADVICE[d.kind]}; attempt ${d.attempt}${request})`;
}
