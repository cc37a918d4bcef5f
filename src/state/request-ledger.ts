/**
 * A local record of the requests assetline has sent with an API key, so a plan can tell how much
 * of the rolling 24-hour quota is left. One folder per key, named by a hash of the key (never the
 * key), holding one append-only file per UTC hour. Each append is a single write to a file opened
 * with O_APPEND, which two processes can do at once without losing or mixing lines. Expired hours
 * are deleted whole rather than rewritten, so pruning cannot drop another process's appends.
 */
import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { QUOTA_WINDOW_MS } from '../catalog/limits.js';

export type RequestKind = 'submit' | 'poll' | 'other';

export interface LedgerRecord {
  /** When the request was sent, epoch milliseconds. */
  readonly at: number;
  /** `refused`: the service answered 429 for the quota (no request of its own: count 0). */
  readonly kind: RequestKind | 'refused';
  /** Requests this record stands for (default 1). */
  readonly count?: number;
  /** For `refused`: until when the quota is taken to be spent. */
  readonly until?: number;
}

/** The service's last word that the quota is spent, while it holds. */
export interface QuotaRefusal {
  readonly at: number;
  readonly until: number;
}

/**
 * How long a 429 for the quota that gave no Retry-After is taken to hold. The window is rolling,
 * so requests age out one by one; an hour is a guess that keeps a nightly plan honest without
 * refusing all day. A Retry-After, when sent, is used instead.
 */
export const REFUSAL_HOLD_MS = 60 * 60 * 1000;

const HOUR_MS = 60 * 60 * 1000;
const BUCKET = /^(\d{4}-\d{2}-\d{2}T\d{2})\.jsonl$/;

export class RequestLedger {
  readonly dir: string;

  /** `keyId`: the key's id() (a hash, never the key). */
  constructor(stateDir: string, keyId: string) {
    this.dir = path.join(stateDir, 'ledger', keyId);
  }

  /** Record requests; one write per hour they fall in. */
  async append(records: readonly LedgerRecord[]): Promise<void> {
    if (records.length === 0) return;
    const byBucket = new Map<string, string>();
    for (const record of records) {
      const n = record.kind === 'refused' ? 0 : (record.count ?? 1);
      const line = `${JSON.stringify({ t: record.at, kind: record.kind, n, ...(record.until !== undefined && { until: record.until }) })}\n`;
      const bucket = bucketName(record.at);
      byBucket.set(bucket, (byBucket.get(bucket) ?? '') + line);
    }
    await mkdir(this.dir, { recursive: true });
    for (const [bucket, lines] of byBucket) await appendFile(path.join(this.dir, bucket), lines, { flag: 'a' });
  }

  /** Requests recorded after `since` (the rolling window is (now - 24 h, now]). */
  async countSince(since: number): Promise<number> {
    let total = 0;
    for (const { file, start } of await this.#buckets()) {
      if (start + HOUR_MS <= since) continue;
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        const record = parseLine(line);
        if (record && record.t > since) total += record.n;
      }
    }
    return total;
  }

  /** When the newest request of the window was sent (it frees up 24 h later); undefined when none. */
  async newestInWindow(now: number): Promise<number | undefined> {
    let newest: number | undefined;
    for (const { file, start } of await this.#buckets()) {
      if (start + HOUR_MS <= now - QUOTA_WINDOW_MS) continue;
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        const record = parseLine(line);
        if (record && record.n > 0 && record.t > now - QUOTA_WINDOW_MS && (newest === undefined || record.t > newest))
          newest = record.t;
      }
    }
    return newest;
  }

  /** The latest refusal for the quota that still holds at `now`, if any. */
  async refusal(now: number): Promise<QuotaRefusal | undefined> {
    let latest: QuotaRefusal | undefined;
    for (const { file, start } of await this.#buckets()) {
      if (start + HOUR_MS <= now - QUOTA_WINDOW_MS) continue;
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        const record = parseLine(line);
        if (record?.until !== undefined && record.until > now && (!latest || record.t > latest.at))
          latest = { at: record.t, until: record.until };
      }
    }
    return latest;
  }

  /** Requests in the 24 hours before `now`. */
  async countInWindow(now: number): Promise<number> {
    return this.countSince(now - QUOTA_WINDOW_MS);
  }

  /** Delete the hours that lie wholly outside the window; returns how many. */
  async prune(now: number): Promise<number> {
    let removed = 0;
    for (const { file, start } of await this.#buckets()) {
      if (start + HOUR_MS > now - QUOTA_WINDOW_MS) continue;
      await rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  async #buckets(): Promise<{ file: string; start: number }[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.flatMap((name) => {
      const hour = BUCKET.exec(name)?.[1];
      return hour ? [{ file: path.join(this.dir, name), start: Date.parse(`${hour}:00:00.000Z`) }] : [];
    });
  }
}

function bucketName(at: number): string {
  return `${new Date(at).toISOString().slice(0, 13)}.jsonl`;
}

/** A line a crash cut short is skipped, not fatal. */
function parseLine(line: string): { t: number; n: number; until?: number } | undefined {
  if (line === '') return undefined;
  try {
    const value = JSON.parse(line) as { t?: unknown; n?: unknown; until?: unknown };
    if (typeof value.t !== 'number' || typeof value.n !== 'number') return undefined;
    return typeof value.until === 'number'
      ? { t: value.t, n: value.n, until: value.until }
      : { t: value.t, n: value.n };
  } catch {
    return undefined;
  }
}
