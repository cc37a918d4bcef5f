/**
 * The sandbox: a local HTTP server that implements the Creative Media Generation API strictly,
 * with the concrete choices of decisions.md where the reference is silent. In-process for tests
 * and `run --sandbox` (`startSandbox()` on port 0, `stop()`), or standalone (`assetline sandbox`).
 *
 * With `stateDir` (what `run --sandbox` gives it) it keeps its state there (persist/) and starts
 * from what an earlier sandbox left: a run killed against one sandbox resumes against the next.
 * Its result URLs then keep one origin, the address the state was first served from, run after
 * run, and it listens there again when it can. When it cannot (the port is taken: another program,
 * or a second run at the same time) it listens on any free port, and a client reaches the origin
 * through `address`: `run --sandbox` connects every request for the origin to it (OriginRoute in
 * src/api/http-engine.ts). Listening on the old port alone could not be relied on; URLs that name
 * the listening port would break at every restart; one origin routed to wherever the sandbox is
 * works every time.
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
import { openState } from './persist/open-state.js';
import { restoreState } from './persist/restore-state.js';
import { SessionRecorder, type StateRecorder } from './persist/state-recorder.js';
import { DEFAULT_ACCOUNTS, DEFAULT_VIDEO_MS, type SandboxConfig } from './sandbox-config.js';
import type { SandboxState } from './sandbox-state.js';
import { SeededRandom } from './seeded-random.js';
import { SandboxStats } from './stats.js';
import { VideoJobs } from './video-jobs.js';

export interface SandboxOptions {
  /** 0 (default): any free port. With `stateDir`, the port of the state's origin comes first. */
  readonly port?: number;
  /** Loopback by default: the sandbox is not meant to be reachable from elsewhere. */
  readonly host?: string;
  readonly config?: SandboxConfig;
  /**
   * Keep the state (accounts, quota, charges, stored answers, video jobs, result files) in this
   * folder, starting from what an earlier sandbox left there. Default: in memory only.
   */
  readonly stateDir?: string;
  /**
   * The wall clock under the sandbox's clock (tests start a later sandbox a day later with it).
   * @default Date.now
   */
  readonly wallClock?: () => number;
}

export class Sandbox implements SandboxState {
  readonly config: SandboxConfig;
  readonly clock: SandboxClock;
  readonly accounts: Accounts;
  readonly stats = new SandboxStats();
  readonly files: FileStore;
  readonly jobs = new VideoJobs();
  readonly idempotency = new IdempotencyStore();
  readonly faults: FaultLayer;
  readonly random: SeededRandom;
  readonly video: { readonly durationMs: number; readonly pendingShare: number };
  /** The origin of its URLs: where it listens, or with a saved state, the state's origin. */
  baseUrl = '';
  /** Where it listens. */
  address = '';
  recorder: StateRecorder | undefined;
  readonly media: 'real' | 'placeholder';
  readonly #server: Server;
  #counter = 0;
  /** With a saved state, the session's tag: ids stay unique across every session of the state. */
  #idTag = '';

  constructor(config: SandboxConfig = {}, wallClock?: () => number) {
    this.config = config;
    this.clock = new SandboxClock(wallClock);
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
    return `${prefix}_${this.random.hex()}${this.#counter.toString(36).padStart(4, '0')}${this.#idTag}`;
  }

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.address = `http://${shownHost}:${address.port}`;
    this.baseUrl = this.address;
  }

  /** Start from the state kept in `dir`, listen (on its origin's port when free), and keep it there. */
  async resume(dir: string, port: number, host: string): Promise<void> {
    const opened = await openState(dir, this.now(), this.files.retentionMs);
    try {
      restoreState(this, opened.data, dir);
      this.#idTag = `-s${opened.session}`;
      const origin = opened.data.origin;
      const originPort = origin === undefined ? undefined : Number(new URL(origin).port);
      if (originPort === undefined || !(await this.#tryListen(originPort, host))) await this.listen(port, host);
      this.baseUrl = origin ?? this.address;
      const log = await opened.begin(this.baseUrl);
      this.recorder = new SessionRecorder(log, dir, opened.session, this.files, this.jobs);
    } catch (error) {
      await this.stop();
      throw error;
    } finally {
      await opened.release();
    }
  }

  async #tryListen(port: number, host: string): Promise<boolean> {
    try {
      await this.listen(port, host);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
      throw error;
    }
  }

  /** Stop listening and drop every connection, stalled ones included. */
  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.recorder?.close(this.now());
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = new Sandbox(options.config, options.wallClock);
  const port = options.port ?? 0;
  const host = options.host ?? '127.0.0.1';
  if (options.stateDir === undefined) await sandbox.listen(port, host);
  else await sandbox.resume(options.stateDir, port, host);
  return sandbox;
}
