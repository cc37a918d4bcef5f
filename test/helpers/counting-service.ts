/**
 * A stand-in for the service that only counts what reaches it (and answers 500): for tests of
 * commands that must send nothing. Started before the file's tests, stopped after them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface CountingService {
  /** Requests received so far; set to 0 to count afresh. */
  hits: number;
  readonly baseUrl: string;
}

export function useCountingService(): CountingService {
  const service = { hits: 0, baseUrl: '' };
  const server = createServer((_request, response) => {
    service.hits++;
    response.writeHead(500).end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return service;
}
