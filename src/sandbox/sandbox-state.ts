/**
 * What the sandbox's request handlers work on: its accounts, files, video jobs, idempotent
 * answers, faults, counters, clock and configuration. The handlers (the request pipeline, the
 * endpoints, the admin and file routes) take this, never the Sandbox server that holds it, so
 * sandbox.ts imports them and none of them imports it.
 */
import type { Accounts } from './accounts.js';
import type { SandboxClock } from './clock.js';
import type { FaultLayer } from './faults.js';
import type { FileStore } from './file-store.js';
import type { IdempotencyStore } from './idempotency.js';
import type { StateRecorder } from './persist/state-recorder.js';
import type { SandboxConfig } from './sandbox-config.js';
import type { SandboxStats } from './stats.js';
import type { VideoJobs } from './video-jobs.js';

/** What an endpoint needs to answer: where results are kept and served from, the jobs, the clock, ids. */
export interface EndpointState {
  readonly files: FileStore;
  readonly jobs: VideoJobs;
  /** The sandbox's own address, for result URLs. */
  readonly baseUrl: string;
  /** placeholder: every result is one tiny file made once (benchmarks). */
  readonly media: 'real' | 'placeholder';
  now(): number;
  newId(prefix: string): string;
}

/** Everything a request may touch. */
export interface SandboxState extends EndpointState {
  readonly config: SandboxConfig;
  readonly clock: SandboxClock;
  readonly accounts: Accounts;
  readonly stats: SandboxStats;
  readonly idempotency: IdempotencyStore;
  readonly faults: FaultLayer;
  /** How long video jobs take, and the part of it spent pending. */
  readonly video: { readonly durationMs: number; readonly pendingShare: number };
  /** Writes the state down as it changes (persist/); undefined for a sandbox that keeps it in memory only. */
  readonly recorder: StateRecorder | undefined;
}
