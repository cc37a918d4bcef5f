/**
 * The embedded sandbox's origin routed to where it listens: requests for the origin reach the
 * address (the URL, and so its Host header, left as written), every other origin is reached as
 * usual. On real sockets, through the client's HTTP engine.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpEngine } from '../../src/api/http-engine.js';

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that answers with its name and the Host header it was sent. */
async function listen(name: string): Promise<string> {
  const server = createServer((request, response) => response.end(`${name} ${request.headers.host}`));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: bind one, note it, close it. */
async function closedOrigin(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('an origin route', () => {
  it('connects requests for the origin to the address, and nothing else', async () => {
    const sandbox = await listen('sandbox');
    const other = await listen('other');
    const origin = await closedOrigin();
    const engine = new HttpEngine(2, undefined, { origin, address: sandbox });
    try {
      const routed = await engine.fetch(`${origin}/files/img_1.png`, { method: 'GET', headers: {} });
      expect(await routed.text()).toBe(`sandbox ${origin.slice('http://'.length)}`);
      const direct = await engine.fetch(`${other}/x`, { method: 'GET', headers: {} });
      expect(await direct.text()).toBe(`other ${other.slice('http://'.length)}`);
      // Without the route, the origin is a port nothing listens on.
      const plain = new HttpEngine(1);
      await expect(plain.fetch(`${origin}/x`, { method: 'GET', headers: {} })).rejects.toThrow();
      await plain.close();
    } finally {
      await engine.close();
    }
  });
});
