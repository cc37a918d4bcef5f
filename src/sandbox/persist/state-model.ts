/**
 * The saved state while it is put together at start-up: state.json, then each finished session's
 * log replayed onto it, then what has aged out dropped, to be written back and restored.
 */
import { QUOTA_WINDOW_MS } from '../../catalog/limits.js';
import { videoFileId } from '../video-jobs.js';
import type { LogRecord } from './log-records.js';
import type { AnswerRecord, ChargeTotalsData, FileRecord, JobRecord, StateData } from './state-data.js';

/**
 * How long an expired result is still known, to answer 410 Gone as a running sandbox does; after
 * that its URL is unknown (404), which clients read the same way ("the result has expired").
 */
export const EXPIRED_KNOWN_MS = 7 * 24 * 3_600_000;

export class StateModel {
  origin: string | undefined;
  nextSession: number;
  readonly absorbed: ReadonlySet<number>;
  readonly #accounts = new Map<string, { spent: number; requests: number[] }>();
  readonly #charges: ChargeTotalsData;
  readonly #answers = new Map<string, AnswerRecord>();
  readonly #files = new Map<string, FileRecord>();
  readonly #jobs = new Map<string, JobRecord>();

  constructor(data: StateData) {
    this.origin = data.origin;
    this.nextSession = data.next_session;
    this.absorbed = new Set(data.absorbed);
    for (const [name, account] of Object.entries(data.accounts))
      this.#accounts.set(name, { spent: account.spent, requests: [...account.requests] });
    this.#charges = structuredClone(data.charges);
    for (const answer of data.answers) this.#answers.set(answerId(answer.account, answer.key), answer);
    for (const file of data.files) this.#files.set(file.id, file);
    for (const job of data.jobs) this.#jobs.set(job.id, job);
  }

  /** What one line of a session's log changes. */
  apply(record: LogRecord): void {
    switch (record.t) {
      case 'request':
        this.#account(record.account).requests.push(record.at);
        return;
      case 'create':
        if (record.credits > 0) this.#charge(record.account, record.credits, record.key);
        if (record.key !== undefined && record.answer)
          this.#answers.set(answerId(record.account, record.key), {
            account: record.account,
            key: record.key,
            status: record.answer.status,
            body: record.answer.body,
            at: record.at,
          });
        for (const file of record.files ?? []) this.#files.set(file.id, file);
        if (record.job) this.#jobs.set(record.job.id, record.job);
        return;
      case 'settled':
        return this.#settle(record);
      case 'owner':
      case 'closed':
        return;
    }
  }

  #settle(record: Extract<LogRecord, { t: 'settled' }>): void {
    const job = this.#jobs.get(record.id);
    // Settled already: by another session that resumed the same state at the same time. The clip
    // has the same name either way (videoFileId); the first settlement is the one that counts.
    if (!job || job.status === 'completed' || job.status === 'error') return;
    const settled: JobRecord = { ...job, status: record.status, credits_used: record.credits_used };
    if (record.video_url !== undefined) settled.video_url = record.video_url;
    if (record.message !== undefined) settled.message = record.message;
    this.#jobs.set(job.id, settled);
    if (record.credits_used > 0) this.#charge(job.account, record.credits_used, job.key);
    if (record.video_url !== undefined) {
      const id = videoFileId(job.id);
      this.#files.set(id, { id, type: 'video/mp4', at: record.at, source: { job: job.id } });
    }
  }

  #account(name: string): { spent: number; requests: number[] } {
    let account = this.#accounts.get(name);
    if (!account) {
      account = { spent: 0, requests: [] };
      this.#accounts.set(name, account);
    }
    return account;
  }

  #charge(account: string, credits: number, key: string | undefined): void {
    this.#account(account).spent += credits;
    const charges = this.#charges;
    charges.count++;
    charges.credits += credits;
    charges.by_account[account] = (charges.by_account[account] ?? 0) + 1;
    charges.credits_by_account[account] = (charges.credits_by_account[account] ?? 0) + credits;
    if (key === undefined) charges.without_idempotency_key++;
    else charges.by_idempotency_key[key] = (charges.by_idempotency_key[key] ?? 0) + 1;
  }

  /**
   * The state to write back and restore: requests and answers older than the 24-hour window
   * dropped, results past their retention without their bytes (and forgotten after
   * EXPIRED_KNOWN_MS), finished jobs kept while their clip or their 24 hours last.
   */
  toData(now: number, retentionMs: number, absorbed: readonly number[]): StateData {
    const accounts: StateData['accounts'] = {};
    for (const [name, account] of this.#accounts) {
      accounts[name] = {
        spent: account.spent,
        requests: account.requests.filter((at) => at > now - QUOTA_WINDOW_MS).sort((a, b) => a - b),
      };
    }
    const answers = [...this.#answers.values()].filter((answer) => now - answer.at < QUOTA_WINDOW_MS);
    const files: FileRecord[] = [];
    const clipsKept = new Set<string>();
    for (const file of this.#files.values()) {
      if (now >= file.at + retentionMs + EXPIRED_KNOWN_MS) continue;
      if (now < file.at + retentionMs) {
        files.push(file);
        if (file.source && 'job' in file.source) clipsKept.add(file.source.job);
      } else {
        files.push({ id: file.id, type: file.type, at: file.at });
      }
    }
    const jobs: JobRecord[] = [];
    for (const job of this.#jobs.values()) {
      const open = job.status !== 'completed' && job.status !== 'error';
      if (!open && !clipsKept.has(job.id) && now - job.created_at >= QUOTA_WINDOW_MS) continue;
      if (open || clipsKept.has(job.id) || job.clip.start_image === undefined) jobs.push(job);
      else jobs.push({ ...job, clip: withoutStartImage(job.clip) });
    }
    const remembered = new Set([...answers.map((answer) => answer.key), ...jobs.flatMap((job) => job.key ?? [])]);
    const byKey = Object.entries(this.#charges.by_idempotency_key).filter(([key]) => remembered.has(key));
    return {
      version: 1,
      ...(this.origin !== undefined && { origin: this.origin }),
      next_session: this.nextSession,
      absorbed: [...absorbed].sort((a, b) => a - b),
      accounts,
      charges: { ...this.#charges, by_idempotency_key: Object.fromEntries(byKey) },
      answers,
      files,
      jobs,
    };
  }
}

function answerId(account: string, key: string): string {
  return `${account}\u0000${key}`;
}

function withoutStartImage(clip: JobRecord['clip']): JobRecord['clip'] {
  const copy = { ...clip };
  delete copy.start_image;
  return copy;
}

/** The files under the state folder that the state still needs: result bytes and start images. */
export function referencedFiles(data: StateData): Set<string> {
  const referenced = new Set<string>();
  for (const file of data.files) if (file.source && 'file' in file.source) referenced.add(file.source.file);
  for (const job of data.jobs) if (job.clip.start_image !== undefined) referenced.add(job.clip.start_image);
  return referenced;
}
