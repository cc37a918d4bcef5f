/**
 * The client tells the runner when a request ended without any attempt connecting (the service
 * cannot be reached), and only then: on real sockets, retries without waiting.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { ApiError } from '../../src/api/api-error.js';
import type { Unreachable } from '../../src/api/client-events.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { resolvedApi } from '../helpers/api-harness.js';

const PARAMS = { prompt: 'p', model: 'z-image-turbo', num_images: 1 } as const;

function client(baseUrl: string, told: Unreachable[]): ApiClient {
  return new ApiClient({
    baseUrl,
    key: new SecretKey('sk-live-UNREACHABLE-TEST-1234'),
    api: resolvedApi(),
    connections: 1,
    environment: { sleep: async () => undefined, random: () => 0, now: Date.now },
    events: { unreachable: (event) => told.push(event) },
  });
}

async function failureOf(work: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('a request that could not connect', () => {
  it('on every attempt: told once, with the cause in words', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const told: Unreachable[] = [];
    const api = client(`http://127.0.0.1:${port}`, told);
    const error = await failureOf(api.generate(PARAMS));
    await api.close();
    expect(error.connectError).toBe('ECONNREFUSED');
    expect(told).toEqual([{ method: 'POST', path: expect.any(String) as string, cause: 'connection refused' }]);
  });

  it('after an attempt that reached the service: not unreachable', async () => {
    // Answers one 500, then stops listening: the retries find nothing there.
    const server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
      response.end('{"success":false,"error":{"code":"server_error","message":"boom"}}');
      server.close();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const told: Unreachable[] = [];
    const api = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, told);
    const error = await failureOf(api.generate(PARAMS));
    await api.close();
    expect(error.serviceCode).toBe('connection_refused');
    expect(error.connectError).toBeUndefined();
    expect(told).toEqual([]);
  });
});
