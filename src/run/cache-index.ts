/**
 * What the result cache reads from a journal: each instance's own current result, and the newest
 * result of each piece of work (by fingerprint). A run has the whole journal state for this; a
 * plan reads only this, from the journal streamed line by line. Per instance it keeps its
 * fingerprint, its generation and whether its own result is the newest of its work; each result is
 * kept once, as its journal line, and parsed only when looked up. So planning 100,000 done rows
 * neither builds the run's full state of 300,000 histories nor parses most of the journal.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { type JournalState, parseJournalLine } from './journal.js';
import type { DownloadedRecord } from './result-index.js';

/** Where the cache finds earlier results. */
export interface CacheSource {
  /** The instance's own current result, if it has one. */
  ownResult(key: string): DownloadedRecord | undefined;
  /** The newest result of this work, whichever instance it was made for. */
  resultFor(fingerprint: string): DownloadedRecord | undefined;
}

/** The run's journal state, as the cache reads it. */
export function journalCacheSource(state: JournalState): CacheSource {
  return {
    ownResult: (key) => state.instances.get(key)?.downloaded,
    resultFor: (fingerprint) => state.results.get(fingerprint),
  };
}

interface KeyState {
  /** The work of its latest intent (or of its first result, before any intent). */
  fingerprint: string | undefined;
  /** With the fingerprint, tells a new attempt (its own result set aside) from a resumed one. */
  generation: number | undefined;
  /** Its own current result is the one of this work. */
  own: boolean;
}

/** A download as its journal line, with the instance it was made for. */
interface StoredResult {
  readonly key: string;
  readonly line: string;
}

const INTENT = '{"type":"intent",';
const DOWNLOADED = '{"type":"downloaded",';

export class CacheIndex implements CacheSource {
  readonly #keys = new Map<string, KeyState>();
  /** The newest download of each piece of work. */
  readonly #results = new Map<string, StoredResult>();
  /** Own results that a newer result of the same work, for another instance, replaced. */
  readonly #displaced = new Map<string, StoredResult>();
  #redo = false;

  /** The journal has a redo (--redo) intent: telling whether it is finished takes the whole story. */
  get hasRedo(): boolean {
    return this.#redo;
  }

  /** The index of a journal file; empty when there is none. */
  static async read(file: string): Promise<CacheIndex> {
    const index = new CacheIndex();
    const input = createReadStream(file, 'utf8');
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) index.applyLine(line);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    return index;
  }

  /**
   * One journal line. Only intents and downloads matter, and of them only a few fields: those are
   * read straight from the text the journal writes (one JSON object per line, `type` first).
   * Other records are skipped unread; a line in another shape is parsed.
   */
  applyLine(line: string): void {
    if (line.startsWith(INTENT)) {
      if (line.includes('"redo":true')) this.#redo = true;
      const key = stringField(line, 'key');
      const fingerprint = stringField(line, 'fingerprint');
      const generation = numberField(line, 'generation');
      if (key !== undefined && fingerprint !== undefined && generation !== undefined)
        return this.#intent(key, fingerprint, generation);
    } else if (line.startsWith(DOWNLOADED)) {
      const key = stringField(line, 'key');
      const fingerprint = stringField(line, 'fingerprint');
      if (key !== undefined && fingerprint !== undefined) return this.#downloaded(key, fingerprint, line);
    } else if (line.startsWith('{"type":"')) {
      return;
    }
    const record = parseJournalLine(line);
    if (record?.type === 'intent' && record.redo) this.#redo = true;
    if (record?.type === 'intent') this.#intent(record.key, record.fingerprint, record.generation);
    else if (record?.type === 'downloaded') this.#downloaded(record.key, record.fingerprint, JSON.stringify(record));
  }

  ownResult(key: string): DownloadedRecord | undefined {
    const state = this.#keys.get(key);
    if (!state?.own || state.fingerprint === undefined) return undefined;
    const newest = this.#results.get(state.fingerprint);
    return parsed(newest?.key === key ? newest : this.#displaced.get(key));
  }

  resultFor(fingerprint: string): DownloadedRecord | undefined {
    return parsed(this.#results.get(fingerprint));
  }

  // The same rules as the run's state (applyRecord in journal.ts), for these two records.

  #intent(key: string, fingerprint: string, generation: number): void {
    const state = this.#state(key);
    // A new attempt (another idempotency key: other work or a later generation) sets the
    // instance's result aside; the same attempt again (a resumed run) keeps it.
    if (fingerprint !== state.fingerprint || generation !== state.generation) {
      state.own = false;
      this.#displaced.delete(key);
    }
    state.fingerprint = fingerprint;
    state.generation = generation;
  }

  #downloaded(key: string, fingerprint: string, line: string): void {
    const state = this.#state(key);
    const previous = this.#results.get(fingerprint);
    if (previous && previous.key !== key) {
      const owner = this.#keys.get(previous.key);
      if (owner?.own && owner.fingerprint === fingerprint) this.#displaced.set(previous.key, previous);
    }
    if (state.fingerprint === undefined || state.fingerprint === fingerprint) {
      state.fingerprint ??= fingerprint;
      state.own = true;
      this.#displaced.delete(key);
    }
    this.#results.set(fingerprint, { key, line });
  }

  #state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { fingerprint: undefined, generation: undefined, own: false };
      this.#keys.set(key, state);
    }
    return state;
  }
}

function parsed(stored: StoredResult | undefined): DownloadedRecord | undefined {
  return stored ? (JSON.parse(stored.line) as DownloadedRecord) : undefined;
}

/** A string field's value as written, when it has no escapes; undefined otherwise (then parse). */
function stringField(line: string, name: string): string | undefined {
  const marker = `,"${name}":"`;
  const start = line.indexOf(marker);
  if (start === -1) return undefined;
  const from = start + marker.length;
  const end = line.indexOf('"', from);
  if (end === -1) return undefined;
  const value = line.slice(from, end);
  return value.includes('\\') ? undefined : value;
}

function numberField(line: string, name: string): number | undefined {
  const marker = `,"${name}":`;
  const start = line.indexOf(marker);
  if (start === -1) return undefined;
  const match = /^\d+/.exec(line.slice(start + marker.length, start + marker.length + 16));
  return match ? Number(match[0]) : undefined;
}
