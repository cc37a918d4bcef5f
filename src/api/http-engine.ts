/**
 * How the client puts a request on the wire: the platform fetch over one undici Agent, its
 * dispatcher. The Agent holds as many connections as asked for, keeps them alive longer than the
 * 5 s between video polls, and has connect, headers and body timeouts. The global fetch is looked
 * up at each call, so msw (which replaces it) stands in for the service in the unit tests, while
 * the integration tests and runs go through the same code to a real socket.
 *
 * On Node 20 the global fetch is the undici bundled with Node (6.x) and the Agent is the undici
 * package's (7.x): fetch only calls the Agent's `dispatch` with its handler of the older form,
 * which the 7.x Agent still takes (tested on real sockets in transport-errors.test.ts). undici's
 * own `fetch` export would not need that, but msw cannot intercept it.
 */
import { Agent } from 'undici';
import { type OriginRoute, routedConnector } from './origin-route.js';

export interface Timeouts {
  readonly connectMs: number;
  /** Time to the answer's headers: generation can take a while. */
  readonly headersMs: number;
  /** Longest pause between two pieces of a body: a stalled answer or download fails. */
  readonly bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 120_000, bodyMs: 120_000 };

/** Longer than the 5 s between two polls of a video job, so a poll finds its connection open. */
const KEEP_ALIVE_MS = 30_000;

export interface EngineRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  /** One request's own signal (request-signal.ts), not a long-lived one: fetch keeps a listener on it. */
  readonly signal?: AbortSignal | undefined;
}

export class HttpEngine {
  readonly #agent: Agent;

  /** `route`: connections for one origin go elsewhere (the embedded sandbox's; origin-route.ts). */
  constructor(connections: number, timeouts: Timeouts = DEFAULT_TIMEOUTS, route?: OriginRoute) {
    this.#agent = new Agent({
      connections,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: 2 * KEEP_ALIVE_MS,
      connect: route ? routedConnector(route, timeouts.connectMs) : { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
  }

  /** One request. The caller reads the body or cancels it: a body left alone holds its connection. */
  fetch(url: string, request: EngineRequest): Promise<Response> {
    const init = {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      ...(request.signal && { signal: request.signal }),
      dispatcher: this.#agent,
    };
    // The Agent's type is undici 7's; the global fetch's RequestInit names the bundled undici's.
    return fetch(url, init as unknown as RequestInit);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
