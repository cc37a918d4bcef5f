/**
 * API requests for the client, over the HTTP engine (http-engine.ts). The key is added to the
 * request here, at dispatch, and nowhere else. Failures without an answer become ApiErrors that say
 * whether the request may have been done anyway (ambiguous) or never left (refused).
 */
import { ApiError } from './api-error.js';
import type { HttpEngine } from './http-engine.js';
import { classify } from './outcome-policy.js';
import { requestSignal } from './request-signal.js';
import { parseRetryAfter } from './retry.js';
import type { SecretKey } from './secret-key.js';

export interface HttpAnswer {
  readonly status: number;
  readonly header: (name: string) => string | null;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly json: unknown;
}

export interface SendOptions {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  readonly idempotencyKey?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Limit for this attempt; undefined: only the Agent's timeouts. */
  readonly timeoutMs?: number | undefined;
  readonly attempt: number;
  readonly poll: boolean;
}

/** undici's error codes for "it never connected": nothing was sent, so nothing was done. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // fetch refuses a port on its block list (1, 22, 25...) before connecting: see fetchCode.
  'bad_port',
]);

export class Transport {
  readonly baseUrl: string;
  readonly #key: SecretKey;
  readonly #engine: HttpEngine;

  constructor(baseUrl: string, key: SecretKey, engine: HttpEngine) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#key = key;
    this.#engine = engine;
  }

  async send(options: SendOptions): Promise<HttpAnswer> {
    // fetch would refuse such a header with a bare TypeError, read below as a broken connection
    // (ambiguous, retried). It is a bad key: refuse it here, sent to no one.
    const keyProblem = this.#key.headerProblem();
    if (keyProblem) {
      throw new ApiError({
        method: options.method,
        path: options.path,
        status: undefined,
        code: 'invalid_api_key',
        message: `the API key ${keyProblem}, so it cannot be sent as a header`,
        requestId: undefined,
        attempt: options.attempt,
        kind: 'auth',
        ambiguous: false,
      });
    }
    const headers: Record<string, string> = { accept: 'application/json', authorization: this.#key.authorization() };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const signal = requestSignal(options.signal, options.timeoutMs);
    try {
      const response = await this.#engine.fetch(`${this.baseUrl}${options.path}`, {
        method: options.method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: signal.signal,
      });
      const text = await response.text();
      return { status: response.status, header: (name) => response.headers.get(name), json: parseJson(text) };
    } catch (error) {
      throw this.#noAnswer(error, options, signal.timedOut());
    } finally {
      signal.dispose();
    }
  }

  #noAnswer(error: unknown, options: SendOptions, attemptTimedOut: boolean): ApiError | unknown {
    if (options.signal?.aborted) return options.signal.reason ?? error;
    // fetch wraps undici's network error (and its code) in `cause`.
    // A DOMException (an abort, a time limit) has a numeric legacy `code`: only strings count.
    const outer = error as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: { code?: unknown; message?: unknown };
    };
    const code =
      outer.cause?.message === 'bad port'
        ? 'bad_port'
        : ([outer.cause?.code, outer.code, outer.name].find((value) => typeof value === 'string') ?? '');
    const timedOut = attemptTimedOut || code.includes('TIMEOUT');
    const sent = !NOT_SENT.has(code);
    const ours = timedOut ? 'timeout' : sent ? 'connection_reset' : 'connection_refused';
    const detail = this.#key.scrub(code || String(outer.message ?? error));
    return new ApiError({
      method: options.method,
      path: options.path,
      status: undefined,
      code: ours,
      message: timedOut
        ? `no answer in time (${detail})`
        : sent
          ? `the connection broke before an answer (${detail})`
          : `could not connect (${detail})`,
      requestId: undefined,
      attempt: options.attempt,
      kind: classify({ status: undefined, poll: options.poll, retryAfterMs: undefined }),
      ambiguous: sent,
      connectError: sent ? undefined : code,
    });
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function retryAfterOf(answer: HttpAnswer, now: number): number | undefined {
  return parseRetryAfter(answer.header('retry-after'), now);
}
