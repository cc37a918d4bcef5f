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
import type { InstanceHistory, JournalRecord } from './journal-records.js';

export interface JournalState {
  readonly instances: Map<string, InstanceHistory>;
  /** Finished results by fingerprint, newest last: what the cache can reuse. */
  readonly results: Map<string, Extract<JournalRecord, { type: 'downloaded' }>>;
}

export class Journal {
  readonly #handle: FileHandle;
  #pending: string[] = [];
  #waiters: (() => void)[] = [];
  #flushing: Promise<void> | undefined;
  #closed = false;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Open (creating it) and replay; `fresh` sets an existing journal aside and starts empty. */
  static async open(
    file: string,
    options: { fresh: boolean; now: number },
  ): Promise<{ journal: Journal; state: JournalState }> {
    let state: JournalState = { instances: new Map(), results: new Map() };
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
    if (this.#closed) return Promise.resolve();
    this.#pending.push(`${JSON.stringify(record)}\n`);
    if (!durable) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#schedule();
    return done;
  }

  /** Everything appended so far, on disk. */
  async flush(): Promise<void> {
    while (this.#flushing || this.#pending.length > 0) {
      if (!this.#flushing) this.#schedule();
      await this.#flushing;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    await this.#handle.close();
  }

  #schedule(): void {
    this.#flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#write());
  }

  async #write(): Promise<void> {
    const lines = this.#pending;
    const waiters = this.#waiters;
    this.#pending = [];
    this.#waiters = [];
    if (lines.length > 0) {
      await this.#handle.write(lines.join(''));
      await this.#handle.datasync();
    }
    this.#flushing = undefined;
    for (const resolve of waiters) resolve();
    if (this.#pending.length > 0 && this.#waiters.length > 0) this.#schedule();
  }
}

export function replay(text: string): JournalState {
  const instances = new Map<string, InstanceHistory>();
  const results = new Map<string, Extract<JournalRecord, { type: 'downloaded' }>>();
  const history = (key: string): InstanceHistory => {
    let found = instances.get(key);
    if (!found) {
      found = { generation: 0, requestIds: [], ambiguous: 0 };
      instances.set(key, found);
    }
    return found;
  };
  for (const line of text.split('\n')) {
    const record = parseJournalLine(line);
    if (!record || record.type === 'run') continue;
    const h = history(record.key);
    switch (record.type) {
      case 'intent':
        // A new intent after an outcome starts a new generation; one without (a crash) repeats it.
        if (h.answer || h.failed || h.downloaded) {
          delete h.answer;
          delete h.failed;
          delete h.downloaded;
          h.requestIds = [];
          h.ambiguous = 0;
        }
        h.fingerprint = record.fingerprint;
        h.generation = record.generation;
        h.idempotencyKey = record.idempotency_key;
        if (record.operation !== undefined)
          h.work = {
            operation: record.operation,
            model: record.model ?? null,
            creditsPlanned: record.credits_planned ?? 0,
          };
        break;
      case 'submitted':
        h.requestIds.push(record.request_id);
        break;
      case 'answered':
        h.answer = record;
        break;
      case 'downloaded':
        // A result of other work (kept for the cache) is not this instance's current result.
        if (h.fingerprint === undefined || h.fingerprint === record.fingerprint) {
          h.downloaded = record;
          h.fingerprint ??= record.fingerprint;
        }
        results.delete(record.fingerprint);
        results.set(record.fingerprint, record);
        break;
      case 'failed':
        h.failed = record;
        break;
      case 'ambiguous':
        h.ambiguous++;
        break;
    }
  }
  return { instances, results };
}

/** Only what the next runs need: each instance's current story, and each reusable result. */
async function compact(file: string, state: JournalState): Promise<void> {
  const lines: string[] = [];
  const add = (record: JournalRecord) => lines.push(`${JSON.stringify(record)}\n`);
  const current = new Set([...state.instances.values()].map((h) => h.downloaded));
  // Results kept only for the cache first, so each instance's own story is what replays last.
  for (const result of state.results.values()) if (!current.has(result)) add(result);
  for (const [key, h] of state.instances) {
    if (h.fingerprint !== undefined && h.idempotencyKey !== undefined) {
      add({
        type: 'intent',
        t: 0,
        key,
        fingerprint: h.fingerprint,
        generation: h.generation,
        idempotency_key: h.idempotencyKey,
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
