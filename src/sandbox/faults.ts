/**
 * The fault layer. Each request gets a plan of what goes wrong with it, from three sources, first
 * match wins:
 *   1. the `X-Sandbox-Fault` request header (like Prism's `Prefer`), e.g. "status=503" or
 *      "reset-after, latency=200";
 *   2. a scripted queue (admin endpoint or code): the next matching request takes the next entry,
 *      so a test can script "503, then reset after the charge, then fine";
 *   3. the configured rates, drawn from the seeded generator (same seed, same faults).
 * Every fault that happens is counted.
 *
 * Tokens: ok | status=500|502|503 | reset-before | reset-after | stall[=ms] | latency=ms |
 * throttle (video status polls) | video=error|ok (video submits) | video-ms=ms | expired (files).
 */
import type { FaultConfig } from './sandbox-config.js';
import { SandboxError } from './sandbox-error.js';
import type { SeededRandom } from './seeded-random.js';

export interface FaultPlan {
  latencyMs: number;
  status: 500 | 502 | 503 | undefined;
  resetBefore: boolean;
  resetAfter: boolean;
  stallMs: number | undefined;
  throttle: boolean;
  videoError: boolean | undefined;
  videoMs: number | undefined;
  expired: boolean;
}

/** What kind of request a plan is for: decides which configured rates apply. */
export type RequestKind = 'create' | 'poll' | 'file' | 'other';

export interface ScriptEntry {
  readonly fault: string;
  /** Only requests to this path take the entry (default: any API request). */
  readonly path?: string;
}

const DEFAULT_STALL_MS = 30_000;

export function noFaults(): FaultPlan {
  return {
    latencyMs: 0,
    status: undefined,
    resetBefore: false,
    resetAfter: false,
    stallMs: undefined,
    throttle: false,
    videoError: undefined,
    videoMs: undefined,
    expired: false,
  };
}

/** Parse a fault spec; a token we do not know is a 400, so a typo in a test cannot pass silently. */
export function parseFaultSpec(spec: string): FaultPlan {
  const plan = noFaults();
  for (const raw of spec.split(',')) {
    const token = raw.trim();
    if (token === '' || token === 'ok') continue;
    const [name, value] = token.split('=', 2) as [string, string | undefined];
    const number = value === undefined ? undefined : Number(value);
    if (name === 'status' && (number === 500 || number === 502 || number === 503)) plan.status = number;
    else if (name === 'reset-before' && value === undefined) plan.resetBefore = true;
    else if (name === 'reset-after' && value === undefined) plan.resetAfter = true;
    else if (name === 'stall' && (value === undefined || Number.isFinite(number)))
      plan.stallMs = number ?? DEFAULT_STALL_MS;
    else if (name === 'latency' && Number.isFinite(number)) plan.latencyMs = number as number;
    else if (name === 'throttle' && value === undefined) plan.throttle = true;
    else if (name === 'video' && (value === 'error' || value === 'ok')) plan.videoError = value === 'error';
    else if (name === 'video-ms' && Number.isFinite(number)) plan.videoMs = number;
    else if (name === 'expired' && value === undefined) plan.expired = true;
    else {
      throw new SandboxError(
        'invalid_parameter',
        `X-Sandbox-Fault: unknown token "${token}"; expected ok, status=500|502|503, reset-before, reset-after, stall[=ms], latency=ms, throttle, video=error|ok, video-ms=ms or expired`,
      );
    }
  }
  return plan;
}

export class FaultLayer {
  readonly #config: FaultConfig;
  readonly #random: SeededRandom;
  readonly #queue: ScriptEntry[] = [];

  constructor(config: FaultConfig, random: SeededRandom) {
    this.#config = config;
    this.#random = random;
  }

  script(entries: readonly ScriptEntry[]): void {
    for (const entry of entries) parseFaultSpec(entry.fault);
    this.#queue.push(...entries);
  }

  clearScript(): void {
    this.#queue.length = 0;
  }

  plan(kind: RequestKind, path: string, header: string | undefined): FaultPlan {
    if (header !== undefined) return parseFaultSpec(header);
    if (kind !== 'file') {
      const index = this.#queue.findIndex((entry) => entry.path === undefined || entry.path === path);
      if (index !== -1) return parseFaultSpec((this.#queue.splice(index, 1)[0] as ScriptEntry).fault);
    }
    return this.#draw(kind);
  }

  #draw(kind: RequestKind): FaultPlan {
    const c = this.#config;
    const r = this.#random;
    const plan = noFaults();
    if (kind === 'file') {
      plan.expired = r.chance(c.expired_url_rate);
      return plan;
    }
    const latency = c.latency_ms;
    plan.latencyMs =
      latency === undefined ? 0 : typeof latency === 'number' ? latency : r.between(latency[0], latency[1]);
    if (r.chance(c.error_rate)) plan.status = ([500, 502, 503] as const)[Math.floor(r.next() * 3)];
    else if (r.chance(c.reset_before_rate)) plan.resetBefore = true;
    else if (r.chance(c.stall_rate)) plan.stallMs = c.stall_ms ?? DEFAULT_STALL_MS;
    else if (r.chance(c.reset_after_rate)) plan.resetAfter = true;
    if (kind === 'poll') plan.throttle = r.chance(c.poll_throttle_rate);
    if (kind === 'create') plan.videoError = r.chance(c.video_error_rate);
    return plan;
  }
}
