/**
 * Failures without an answer, on real sockets through the client's one HTTP engine (the platform
 * fetch over an undici Agent): whether the request may have been done (ambiguous, so a create call
 * must not be resent without its idempotency key) or never left (refused) decides what the runner
 * may retry.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { DEFAULT_TIMEOUTS, HttpEngine, type Timeouts } from '../../src/api/http-engine.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { Transport } from '../../src/api/transport.js';

const KEY = 'sk-live-TRANSPORT-TEST-99a1';
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

/** A port nothing listens on: bind one, note it, close it. */
async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

async function failure(base: string, timeoutMs?: number, timeouts: Timeouts = DEFAULT_TIMEOUTS): Promise<ApiError> {
  const engine = new HttpEngine(1, timeouts);
  const transport = new Transport(base, new SecretKey(KEY), engine);
  try {
    await transport.send({
      method: 'POST',
      path: '/v1/images/generate',
      body: { prompt: 'x' },
      attempt: 1,
      poll: false,
      timeoutMs,
    });
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  } finally {
    await engine.close();
  }
  throw new Error('the request succeeded');
}

describe('failures without an answer', () => {
  it('a refused connection: nothing was sent, so nothing can have been charged', async () => {
    const error = await failure(await closedPort());
    expect(error.serviceCode).toBe('connection_refused');
    expect(error.ambiguous).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.connectError).toBe('ECONNREFUSED');
  });

  it('a port fetch blocks (127.0.0.1:1) is refused before connecting: not sent, not ambiguous', async () => {
    const error = await failure('http://127.0.0.1:1');
    expect(error.serviceCode).toBe('connection_refused');
    expect(error.ambiguous).toBe(false);
    expect(error.connectError).toBe('bad_port');
  });

  it('a connection reset after the request was read: it may have been done', async () => {
    const base = await listen((request) => {
      request.resume();
      request.on('end', () => request.socket.destroy());
    });
    const error = await failure(base);
    expect(error.serviceCode).toBe('connection_reset');
    expect(error.ambiguous).toBe(true);
    expect(error.connectError).toBeUndefined();
    expect(error.message).not.toContain(KEY);
  });

  it('no answer within the attempt limit: a timeout, ambiguous', async () => {
    const base = await listen(() => undefined);
    const error = await failure(base, 150);
    expect(error.serviceCode).toBe('timeout');
    expect(error.ambiguous).toBe(true);
  });

  it('no headers within the headers timeout: a timeout, ambiguous', async () => {
    const base = await listen(() => undefined);
    const error = await failure(base, undefined, { ...DEFAULT_TIMEOUTS, headersMs: 150 });
    expect(error.serviceCode).toBe('timeout');
    expect(error.ambiguous).toBe(true);
  });

  it('an answer that stalls halfway through its body: a timeout, ambiguous', async () => {
    const base = await listen((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"success":');
    });
    const error = await failure(base, undefined, { ...DEFAULT_TIMEOUTS, bodyMs: 150 });
    expect(error.serviceCode).toBe('timeout');
    expect(error.ambiguous).toBe(true);
  });
});
