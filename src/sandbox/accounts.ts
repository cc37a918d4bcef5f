/**
 * API keys and what they may do: each has a plan (its requests per rolling 24 hours) and a credit
 * balance. Every authenticated request counts against the quota, polls included; charges come out
 * of the balance, and a request the balance cannot cover is refused before any work.
 */
import { PLAN_DAILY_REQUESTS, type PlanName, QUOTA_WINDOW_MS } from '../catalog/limits.js';
import type { AccountConfig } from './sandbox-config.js';

export class Account {
  readonly key: string;
  readonly name: string;
  readonly plan: PlanName;
  readonly limit: number;
  readonly revoked: boolean;
  credits: number;
  /** Times of the requests in the window, oldest first. */
  readonly #requests: number[] = [];

  constructor(config: AccountConfig) {
    this.key = config.key;
    this.name = config.name;
    this.plan = config.plan;
    const limit = config.quota ?? PLAN_DAILY_REQUESTS[config.plan];
    if (limit === null) throw new Error(`sandbox account "${config.name}": an enterprise plan needs a quota`);
    this.limit = limit;
    this.revoked = config.revoked ?? false;
    this.credits = config.credits;
  }

  /** Requests in the 24 hours before `now`. */
  used(now: number): number {
    this.#expire(now);
    return this.#requests.length;
  }

  /** Count a request; false (and not counted) when the quota is spent. */
  tryCount(now: number): boolean {
    if (this.used(now) >= this.limit) return false;
    this.#requests.push(now);
    return true;
  }

  /** Requests counted by an earlier sandbox of the same state (persist/), in any order. */
  restoreRequests(times: readonly number[]): void {
    this.#requests.push(...times);
    this.#requests.sort((a, b) => a - b);
  }

  /** Seconds until the oldest counted request leaves the window (for Retry-After). */
  secondsUntilFree(now: number): number {
    this.#expire(now);
    const oldest = this.#requests[0];
    return oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + QUOTA_WINDOW_MS - now) / 1000));
  }

  #expire(now: number): void {
    let drop = 0;
    while (drop < this.#requests.length && (this.#requests[drop] as number) <= now - QUOTA_WINDOW_MS) drop++;
    if (drop > 0) this.#requests.splice(0, drop);
  }
}

export class Accounts {
  readonly #byKey: Map<string, Account>;

  constructor(configs: readonly AccountConfig[]) {
    this.#byKey = new Map(configs.map((config) => [config.key, new Account(config)]));
  }

  find(key: string): Account | undefined {
    return this.#byKey.get(key);
  }

  all(): Account[] {
    return [...this.#byKey.values()];
  }
}
