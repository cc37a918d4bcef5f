/**
 * The run journal: an append-only JSON-lines file in the pipeline's output folder that makes a run
 * resumable and lets it never pay twice. Appends are group-committed: records that arrive together
 * share one write and one fsync, and a durable append resolves only once its line is on disk, so
 * the caller can make the next side effect safely. A SIGKILL at any moment loses nothing that an
 * awaited append had recorded; a line cut short by the kill is skipped on replay.
 *
 * On opening, the journal is replayed into each instance's history and an index of finished
 * results by fingerprint (the cache), then compacted: rewritten to what is still needed.
 */
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { AssetlineError, EXIT } from '../errors.js';
import type { InstanceHistory, JournalRecord } from './journal-records.js';
import { describeStorageError } from '../storage-errors.js';
import { ResultIndex } from './result-index.js';
import { failureSettlesKey, lostTotal, paidTotal } from './settlement.js';

export interface JournalState {
  readonly instances: Map<string, InstanceHistory>;
  /** Finished results by fingerprint, newest last: what the cache can reuse. */
  readonly results: ResultIndex;
}

/**
 * The journal could not be written (disk full, permissions): the run must stop starting work, and
 * a later run resumes it (exit 4).
 */
export class JournalWriteError extends AssetlineError {
  declare readonly code: 'journal-unwritable';
  override readonly cause: unknown;

  constructor(cause: unknown) {
    super(
      'journal-unwritable',
      `the journal could not be written: ${describeStorageError(cause)}`,
      EXIT.stoppedResumable,
    );
    this.name = 'JournalWriteError';
    this.cause = cause;
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: JournalWriteError) => void;
}

export class Journal {
  readonly #handle: FileHandle;
  #pending: string[] = [];
  #waiters: Waiter[] = [];
  #flushing: Promise<void> | undefined;
  #closed = false;
  /** Set once a write failed: every later append fails the same way, nothing is half-written. */
  #broken: JournalWriteError | undefined;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Open (creating it) and replay; `fresh` sets an existing journal aside and starts empty. */
  static async open(
    file: string,
    options: { fresh: boolean; now: number },
  ): Promise<{ journal: Journal; state: JournalState }> {
    let state: JournalState = { instances: new Map(), results: new ResultIndex() };
    if (options.fresh) {
      await rename(file, `${file}.${options.now}.old`).catch(() => undefined);
    } else {
      const text = await readFile(file, 'utf8').catch(() => '');
      state = replay(text);
      await compact(file, state);
    }
    const handle = await open(file, 'a');
    return { journal: new Journal(handle), state };
  }

  /** Record; with `durable` (the default) resolve only once it is on disk. */
  append(record: JournalRecord, durable = true): Promise<void> {
    if (this.#broken) return Promise.reject(this.#broken);
    if (this.#closed) return Promise.resolve();
    this.#pending.push(`${JSON.stringify(record)}\n`);
    if (!durable) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#schedule();
    return done;
  }

  /** Everything appended so far, on disk (or the journal is broken and it never will be). */
  async flush(): Promise<void> {
    while (!this.#broken && (this.#flushing || this.#pending.length > 0)) {
      if (!this.#flushing) this.#schedule();
      await this.#flushing;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    await this.#handle.close().catch(() => undefined);
  }

  #schedule(): void {
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#write());
  }

  async #write(): Promise<void> {
    const lines = this.#pending;
    const waiters = this.#waiters;
    this.#pending = [];
    this.#waiters = [];
    try {
      if (lines.length > 0) {
        await this.#handle.write(lines.join(''));
        await this.#handle.datasync();
      }
    } catch (error) {
      this.#broken = new JournalWriteError(error);
    }
    this.#flushing = undefined;
    const broken = this.#broken;
    if (broken) {
      for (const waiter of [...waiters, ...this.#waiters.splice(0)]) waiter.reject(broken);
      this.#pending = [];
      return;
    }
    for (const waiter of waiters) waiter.resolve();
    if (this.#pending.length > 0 && this.#waiters.length > 0) this.#schedule();
  }
}

export function replay(text: string): JournalState {
  const state: JournalState = { instances: new Map(), results: new ResultIndex() };
  for (const line of text.split('\n')) {
    const record = parseJournalLine(line);
    if (record) applyRecord(state, record);
  }
  return state;
}

export function newHistory(): InstanceHistory {
  return {
    generation: 0,
    settled: false,
    redo: false,
    paidEarlier: 0,
    losses: [],
    booked: [],
    requestIds: [],
    ambiguous: 0,
  };
}

/**
 * What one record changes in the state. Replay and a running run share it, so what a run
 * remembers while it works is exactly what the next run will read back.
 */
export function applyRecord(state: JournalState, record: JournalRecord): void {
  if (record.type === 'run') return;
  let h = state.instances.get(record.key);
  if (!h) {
    h = newHistory();
    state.instances.set(record.key, h);
  }
  switch (record.type) {
    case 'intent':
      // A new key starts a new story (its paid answer goes to the books); the same key again
      // (a rerun resuming work in doubt) goes on with the story it has.
      if (record.idempotency_key !== h.idempotencyKey) {
        h.paidEarlier = paidTotal(h);
        delete h.answer;
        delete h.failed;
        delete h.downloaded;
        h.requestIds = [];
        h.ambiguous = 0;
        h.settled = false;
        h.redo = false;
      }
      if (record.redo) h.redo = true;
      h.fingerprint = record.fingerprint;
      h.generation = record.generation;
      h.idempotencyKey = record.idempotency_key;
      if (record.settled) h.settled = true;
      if (record.operation !== undefined)
        h.work = {
          operation: record.operation,
          model: record.model ?? null,
          creditsPlanned: record.credits_planned ?? 0,
        };
      break;
    case 'submitted':
      if (!h.requestIds.includes(record.request_id)) h.requestIds.push(record.request_id);
      break;
    case 'answered':
      h.answer = record;
      h.settled = true;
      delete h.failed;
      break;
    case 'downloaded':
      // A result of other work (kept for the cache) is not this instance's current result.
      if (h.fingerprint === undefined || h.fingerprint === record.fingerprint) {
        h.downloaded = record;
        h.fingerprint ??= record.fingerprint;
        delete h.failed;
      }
      state.results.set(record);
      break;
    case 'failed':
      h.failed = record;
      if (failureSettlesKey(record)) h.settled = true;
      break;
    case 'lost':
      h.losses.push(record);
      // The answer given up leaves "current": its credits are in the books now, as lost.
      if (record.answer) delete h.answer;
      else if (record.request_id !== undefined) book(h, [record.request_id]);
      h.paidEarlier += record.credits;
      break;
    case 'paid':
      h.paidEarlier += record.credits;
      book(h, record.request_ids ?? []);
      break;
    case 'ambiguous':
      h.ambiguous++;
      break;
  }
}

function book(h: InstanceHistory, requestIds: readonly string[]): void {
  for (const id of requestIds) if (!h.booked.includes(id)) h.booked.push(id);
}

/** Only what the next runs need: each instance's current story, and each reusable result. */
async function compact(file: string, state: JournalState): Promise<void> {
  const lines: string[] = [];
  const add = (record: JournalRecord) => lines.push(`${JSON.stringify(record)}\n`);
  const current = new Set([...state.instances.values()].map((h) => h.downloaded && JSON.stringify(h.downloaded)));
  // Results kept only for the cache first, so each instance's own story is what replays last.
  for (const result of state.results.records()) {
    const line = JSON.stringify(result);
    if (!current.has(line)) lines.push(`${line}\n`);
  }
  for (const [key, h] of state.instances) {
    // The books first: what was paid apart from the current answer, then each loss (which adds its own).
    const lost = lostTotal(h);
    if (h.paidEarlier - lost > 0 || h.booked.length > 0)
      add({ type: 'paid', t: 0, key, credits: h.paidEarlier - lost, request_ids: h.booked });
    for (const loss of h.losses) add({ ...loss, answer: false });
    if (h.fingerprint !== undefined && h.idempotencyKey !== undefined) {
      add({
        type: 'intent',
        t: 0,
        key,
        fingerprint: h.fingerprint,
        generation: h.generation,
        idempotency_key: h.idempotencyKey,
        // Settled by an answer given up since (lost): no record below says so any more.
        ...(h.settled && !h.answer && !h.failed && { settled: true }),
        ...(h.redo && { redo: true }),
        ...(h.work && {
          operation: h.work.operation,
          model: h.work.model,
          credits_planned: h.work.creditsPlanned,
        }),
      });
    }
    for (const id of h.requestIds)
      add({ type: 'submitted', t: 0, key, request_id: id, idempotency_key: h.idempotencyKey });
    for (let i = 0; i < h.ambiguous; i++) add({ type: 'ambiguous', t: 0, key, attempt: 0, reason: 'earlier run' });
    if (h.answer) add(h.answer);
    if (h.failed) add(h.failed);
    if (h.downloaded) add(h.downloaded);
  }
  const temporary = `${file}.compact`;
  const handle = await open(temporary, 'w');
  try {
    await handle.write(lines.join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file).catch(async (error: unknown) => {
    await rm(temporary, { force: true });
    throw error;
  });
}

/** One journal line, or undefined for a blank line or one cut short by a kill. */
export function parseJournalLine(line: string): JournalRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    const record = JSON.parse(line) as JournalRecord;
    return typeof record === 'object' && record !== null && typeof record.type === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}
