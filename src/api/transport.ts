/**
 * HTTP for the client: the platform `fetch` with an undici Agent as its dispatcher (connections
 * as many as the run's concurrency, keep-alive longer than the 5 s between video polls, connect,
 * headers and body timeouts), so msw can stand in for the service in unit tests. The key is added
 * to the request here, at dispatch, and nowhere else. Failures without an answer become ApiErrors
 * that say whether the request may have been done anyway (ambiguous) or never left (refused).
 */
import { Agent } from 'undici';
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
  readonly headers: Headers;
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
  readonly #key: SecretKey;

  constructor(baseUrl: string, key: SecretKey, connections: number, timeouts: Timeouts = DEFAULT_TIMEOUTS) {
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
  }

  async send(options: SendOptions): Promise<HttpAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: this.#key.authorization() };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const signals = [
      options.signal,
      options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
    ].filter((signal): signal is AbortSignal => signal !== undefined);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${options.path}`, {
        method: options.method,
        headers,
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        ...(signals.length > 0 && { signal: AbortSignal.any(signals) }),
        // The platform fetch takes an undici dispatcher; its type is not in lib.dom's RequestInit.
        dispatcher: this.dispatcher,
      } as unknown as RequestInit);
    } catch (error) {
      throw this.#noAnswer(error, options);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.#noAnswer(error, options);
    }
    return { status: response.status, headers: response.headers, json: parseJson(text) };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  #noAnswer(error: unknown, options: SendOptions): ApiError | unknown {
    if (options.signal?.aborted) return options.signal.reason ?? error;
    const cause = (error as { cause?: { code?: string; name?: string } }).cause;
    const code = cause?.code ?? (error as { name?: string }).name ?? '';
    const timedOut = code.includes('TIMEOUT') || (error as { name?: string }).name === 'TimeoutError';
    const sent = !NOT_SENT.has(code);
    const ours = timedOut ? 'timeout' : sent ? 'connection_reset' : 'connection_refused';
    const detail = this.#key.scrub(String(cause?.code ?? (error as Error).message ?? error));
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

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function retryAfterOf(answer: HttpAnswer, now: number): number | undefined {
  return parseRetryAfter(answer.headers.get('retry-after'), now);
}
