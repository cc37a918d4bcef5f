/**
 * HTTP for the client: one undici Agent (as many connections as asked for, keep-alive
 * longer than the 5 s between video polls, connect, headers and body timeouts) driven by an engine
 * (http-engine.ts: undici's request, or the platform fetch that msw can intercept). The key is added
 * to the request here, at dispatch, and nowhere else. Failures without an answer become ApiErrors
 * that say whether the request may have been done anyway (ambiguous) or never left (refused).
 */
import { Agent } from 'undici';
import { createEngine, type EngineName, type HttpEngine } from './http-engine.js';
import { ApiError } from './api-error.js';
import { classify } from './outcome-policy.js';
import { parseRetryAfter } from './retry.js';
import type { SecretKey } from './secret-key.js';

export interface Timeouts {
  readonly connectMs: number;
  /** Time to the answer's headers: generation can take a while. */
  readonly headersMs: number;
  readonly bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 120_000, bodyMs: 120_000 };

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
]);

export class Transport {
  readonly baseUrl: string;
  readonly dispatcher: Agent;
  readonly engine: HttpEngine;
  readonly #key: SecretKey;

  constructor(
    baseUrl: string,
    key: SecretKey,
    connections: number,
    timeouts: Timeouts = DEFAULT_TIMEOUTS,
    engine: EngineName = 'undici',
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#key = key;
    this.dispatcher = new Agent({
      connections,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
    this.engine = createEngine(engine, this.dispatcher);
  }

  async send(options: SendOptions): Promise<HttpAnswer> {
    // undici refuses such a header deep in its pool, and the connection it took is never given
    // back: after a few, every request waits forever. Refuse it here, sent to no one.
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
    const linked = linkedSignal(options.signal, options.timeoutMs);
    try {
      const response = await this.engine(`${this.baseUrl}${options.path}`, {
        method: options.method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: linked.signal,
      });
      const text = await response.text();
      return { status: response.status, header: response.header, json: parseJson(text) };
    } catch (error) {
      throw this.#noAnswer(error, options, linked.timedOut());
    } finally {
      linked.dispose();
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  #noAnswer(error: unknown, options: SendOptions, attemptTimedOut: boolean): ApiError | unknown {
    if (options.signal?.aborted) return options.signal.reason ?? error;
    // fetch wraps the network error in `cause`; undici's request throws it as is.
    // A DOMException (an abort, a time limit) has a numeric legacy `code`: only strings count.
    const outer = error as { code?: unknown; name?: unknown; message?: unknown; cause?: { code?: unknown } };
    const code = [outer.cause?.code, outer.code, outer.name].find((value) => typeof value === 'string') ?? '';
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
    });
  }
}

/**
 * One signal for one request: the caller's (the run's) and the attempt's own time limit, undone
 * when the request ends. AbortSignal.any with AbortSignal.timeout per request leaves a timer and a
 * listener on the long-lived run signal for every request ever sent.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal | undefined;
  readonly dispose: () => void;
  readonly timedOut: () => boolean;
}

export function linkedSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): LinkedSignal {
  if (timeoutMs === undefined) return { signal: parent, dispose: () => undefined, timedOut: () => false };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('the attempt took too long', 'TimeoutError'));
  }, timeoutMs);
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
    timedOut: () => timedOut,
  };
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
