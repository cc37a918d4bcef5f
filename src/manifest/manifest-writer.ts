/**
 * Writing the manifest atomically (a temporary file, fsync, rename, fsync of the folder), so a
 * reader or a crash never sees half of one. While running it is rewritten at most every few
 * seconds, never per event: rewriting a growing file per event costs quadratic time. A big run's
 * manifest takes longer to build and write, so the interval grows with that cost: writing it
 * never takes more than a twentieth of the run. A big manifest is written as it is made, about a
 * megabyte at a time, never held whole as one string.
 */
import { copyFile, link, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Between two writes while running: as often as the progress lines. The manifest is for reading
 * after a run or a crash (the journal, not the manifest, is what a resume reads), and each write
 * builds it whole.
 */
export const MANIFEST_INTERVAL_MS = 10_000;
/** The interval is at least this many times as long as the last write took. */
const COST_FACTOR = 20;

/** What to write: one string, or pieces (text, or bytes copied as they are) made while the file is written. */
export type Content = string | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/** Text is turned into bytes and written this much at a time. */
const CHUNK_CHARS = 1 << 20;

/**
 * Write `content` at `file` atomically and, with the same bytes, at each of `copies`. A copy is a
 * hard link to the one file written and fsynced (a run's final manifest is 6 MB at 5,000 rows:
 * written once, not twice); where the file system has no hard links, the file is copied. When
 * `signal` is aborted the write stops between two chunks, leaves nothing behind and rejects.
 */
export async function writeAtomically(
  file: string,
  content: Content,
  copies: readonly string[] = [],
  signal?: AbortSignal,
): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    await writeDurably(temporary, content, signal);
    for (const copy of copies) {
      await mkdir(path.dirname(copy), { recursive: true });
      const linked = `${copy}.tmp-${process.pid}`;
      await rm(linked, { force: true });
      await link(temporary, linked).catch(async () => {
        await copyFile(temporary, linked);
        await syncFile(linked);
      });
      await rename(linked, copy);
      await syncFolder(path.dirname(copy));
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(path.dirname(file));
}

async function writeDurably(file: string, content: Content, signal: AbortSignal | undefined): Promise<void> {
  const handle = await open(file, 'w');
  try {
    if (typeof content === 'string') {
      await handle.writeFile(content);
    } else {
      let pending: string[] = [];
      let size = 0;
      // Each chunk is awaited before the next is made: the text is never more than a chunk ahead.
      const flush = async () => {
        signal?.throwIfAborted();
        const text = pending.join('');
        pending = [];
        size = 0;
        await handle.writeFile(text);
      };
      for await (const piece of content) {
        if (typeof piece === 'string') {
          pending.push(piece);
          size += piece.length;
          if (size >= CHUNK_CHARS) await flush();
        } else {
          // Bytes go as they are, after the text before them.
          await flush();
          await handle.writeFile(piece);
        }
      }
      await flush();
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}

export class ThrottledWriter {
  readonly #write: (signal: AbortSignal) => Promise<void>;
  #last = Number.NEGATIVE_INFINITY;
  #cost = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #cancel = new AbortController();

  /** `write` should stop early (and leave no file) when its signal is aborted: see cancel(). */
  constructor(write: (signal: AbortSignal) => Promise<void>) {
    this.#write = write;
  }

  /** The time between writes now: the interval, or longer when writing has grown slow. */
  get intervalMs(): number {
    return Math.max(MANIFEST_INTERVAL_MS, COST_FACTOR * this.#cost);
  }

  /** Ask for a write: now if the last one is old enough, else once the interval has passed. */
  request(): void {
    if (this.#timer || this.#cancel.signal.aborted) return;
    const wait = Math.max(0, this.#last + this.intervalMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#last = Date.now();
      this.#writing = this.#writing
        .then(async () => {
          const started = Date.now();
          if (this.#cancel.signal.aborted) return;
          await this.#write(this.#cancel.signal);
          this.#cost = Date.now() - started;
        })
        .catch(() => undefined);
    }, wait);
    this.#timer.unref();
  }

  /** Cancel what is pending and wait for a write in progress: the caller writes the last one. */
  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
  }

  /**
   * Stop for good, at once: what is pending is dropped and a write in progress is told to stop
   * (an interrupted run must not wait for a rebuild of a big manifest it is about to replace).
   */
  async cancel(): Promise<void> {
    this.#cancel.abort();
    await this.stop();
  }
}
