/**
 * The sandbox: a local HTTP server that implements the Creative Media Generation API strictly,
 * with the concrete choices of decisions.md where the reference is silent. In-process for tests
 * and `run --sandbox` (`startSandbox()` on port 0, `stop()`), or standalone (`assetline sandbox`).
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Accounts } from './accounts.js';
import { SandboxClock } from './clock.js';
import { FaultLayer } from './faults.js';
import { FileStore } from './file-store.js';
import { handleRequest } from './http-pipeline.js';
import { IdempotencyStore } from './idempotency.js';
import { DEFAULT_ACCOUNTS, DEFAULT_VIDEO_MS, type SandboxConfig } from './sandbox-config.js';
import type { SandboxState } from './sandbox-state.js';
import { SeededRandom } from './seeded-random.js';
import { SandboxStats } from './stats.js';
import { VideoJobs } from './video-jobs.js';

export interface SandboxOptions {
  /** 0 (default): any free port. */
  readonly port?: number;
  /** Loopback by default: the sandbox is not meant to be reachable from elsewhere. */
  readonly host?: string;
  readonly config?: SandboxConfig;
}

export class Sandbox implements SandboxState {
  readonly config: SandboxConfig;
  readonly clock = new SandboxClock();
  readonly accounts: Accounts;
  readonly stats = new SandboxStats();
  readonly files: FileStore;
  readonly jobs = new VideoJobs();
  readonly idempotency = new IdempotencyStore();
  readonly faults: FaultLayer;
  readonly random: SeededRandom;
  readonly video: { readonly durationMs: number; readonly pendingShare: number };
  baseUrl = '';
  readonly media: 'real' | 'placeholder';
  readonly #server: Server;
  #counter = 0;

  constructor(config: SandboxConfig = {}) {
    this.config = config;
    const seed = config.seed ?? randomInt(2 ** 31);
    // Ids and faults draw from separate streams, so a fault setting does not change the ids.
    this.random = new SeededRandom(seed);
    this.accounts = new Accounts(config.keys ?? DEFAULT_ACCOUNTS);
    this.files = new FileStore((config.retention_hours ?? 24) * 3_600_000);
    this.faults = new FaultLayer(config.faults ?? {}, new SeededRandom(seed ^ 0x5bd1e995));
    this.media = config.media ?? 'real';
    this.video = {
      durationMs: config.video?.duration_ms ?? DEFAULT_VIDEO_MS,
      pendingShare: config.video?.pending_share ?? 0.3,
    };
    this.#server = createServer((request, response) => {
      handleRequest(this, request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, code: 'internal_error', message: String(error) }));
      });
    });
    // Longer than the 5 s between video polls, so a polling client keeps its connection.
    this.#server.keepAliveTimeout = 15_000;
  }

  now(): number {
    return this.clock.now();
  }

  newId(prefix: string): string {
    this.#counter++;
    return `${prefix}_${this.random.hex()}${this.#counter.toString(36).padStart(4, '0')}`;
  }

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, resolve);
    });
    const address = this.#server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${shownHost}:${address.port}`;
  }

  /** Stop listening and drop every connection, stalled ones included. */
  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = new Sandbox(options.config);
  await sandbox.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return sandbox;
}
