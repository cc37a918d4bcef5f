/**
 * Finished results by fingerprint, newest last: what the content-addressed cache can reuse. A run
 * of 300,000 steps adds as many, and looks one up only when two steps do the same work, so each
 * is kept as its journal line (one string) rather than as objects: about half the memory.
 */
import type { JournalRecord } from './journal-records.js';

export type DownloadedRecord = Extract<JournalRecord, { type: 'downloaded' }>;

export class ResultIndex {
  readonly #lines = new Map<string, string>();

  get size(): number {
    return this.#lines.size;
  }

  get(fingerprint: string): DownloadedRecord | undefined {
    const line = this.#lines.get(fingerprint);
    return line === undefined ? undefined : (JSON.parse(line) as DownloadedRecord);
  }

  /** Remember a result, as the newest for its fingerprint. */
  set(record: DownloadedRecord): void {
    this.#lines.delete(record.fingerprint);
    this.#lines.set(record.fingerprint, JSON.stringify(record));
  }

  /** Every result as its journal line, oldest first. */
  lines(): IterableIterator<string> {
    return this.#lines.values();
  }

  fingerprints(): IterableIterator<string> {
    return this.#lines.keys();
  }
}
