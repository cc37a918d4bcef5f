/**
 * The one error the client throws: what was called, what came back, and what it means. Its
 * message is one line a person can act on; the key is never in it (service text is scrubbed).
 */
import { AssetlineError, EXIT } from '../errors.js';
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
  /**
   * Why it never connected (ECONNREFUSED, ENOTFOUND...): set only when nothing reached the service,
   * on this attempt and (once the client's retries end) on every attempt of the request.
   */
  readonly connectError?: string | undefined;
}

/**
 * What a failed request means should it ever end a command. Inside a run it never gets that far:
 * the runner records the step as failed (exit 1 through the verdict) or stops the run on it (auth
 * 5, credits and quota 4), and these are the same codes.
 */
const EXIT_CODES: Readonly<Record<OutcomeKind, number>> = {
  permanent: EXIT.stepsFailed,
  transient: EXIT.stepsFailed,
  auth: EXIT.authFailed,
  credits: EXIT.stoppedResumable,
  quota: EXIT.stoppedResumable,
  // A 429 that kept coming past every wait: the service will not take more now.
  throttled: EXIT.stoppedResumable,
};

export class ApiError extends AssetlineError {
  declare readonly code: 'api-request-failed';
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  /** The service's error code, or ours when no usable answer came (see ApiErrorDetails.code). */
  readonly serviceCode: string;
  readonly serviceMessage: string;
  readonly requestId: string | undefined;
  readonly attempt: number;
  readonly kind: OutcomeKind;
  readonly ambiguous: boolean;
  readonly retryAfterMs: number | undefined;
  readonly connectError: string | undefined;

  constructor(details: ApiErrorDetails) {
    super('api-request-failed', describe(details), EXIT_CODES[details.kind]);
    this.name = 'ApiError';
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.serviceCode = details.code;
    this.serviceMessage = details.message;
    this.requestId = details.requestId;
    this.attempt = details.attempt;
    this.kind = details.kind;
    this.ambiguous = details.ambiguous;
    this.retryAfterMs = details.retryAfterMs;
    this.connectError = details.connectError;
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
      code: this.serviceCode,
      message: this.serviceMessage,
      requestId: this.requestId,
      attempt: this.attempt,
      kind: this.kind,
      ambiguous: this.ambiguous,
      retryAfterMs: this.retryAfterMs,
      connectError: this.connectError,
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
