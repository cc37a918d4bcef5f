/**
 * The rows a run has settled, out of memory: each settled row becomes its manifest line (with the
 * books of its steps) and goes to a file beside the manifest, in sheet order, and its outcomes are
 * let go. So a run of 100,000 rows holds only the rows it is working on, not 300,000 outcomes;
 * the manifest is the head (tallied as rows settle) followed by these lines.
 *
 * Rows settle out of order (a slow video holds its row while later rows finish): a settled row
 * waits here, as its line, until every earlier row has settled. A row that must stay in memory
 * (a video job given up after a timeout, asked once more at the end of the run) leaves a
 * placeholder line, replaced by its manifest line when the manifest is written.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** A settled row: its manifest line, or a row kept in memory until the end. */
export type SettledRow = { readonly line: string } | { readonly held: true };

const HELD = '"held"';

export class RowSpill {
  readonly #file: string;
  #handle: FileHandle | undefined;
  /** The next row (by index) to go to the file: every row before it is there. */
  #next = 0;
  readonly #waiting = new Map<number, SettledRow>();
  #buffer: string[] = [];
  #buffered = 0;
  #writing: Promise<void> = Promise.resolve();
  #failed: unknown;
  /** Placeholders in the file: while there are none, the file can be copied as bytes. */
  #held = 0;

  constructor(file: string) {
    this.#file = file;
  }

  /** Rows in the file so far (0 to this, in order). */
  get written(): number {
    return this.#next;
  }

  add(index: number, row: SettledRow): void {
    if (index < this.#next) return;
    this.#waiting.set(index, row);
    for (let next = this.#waiting.get(this.#next); next; next = this.#waiting.get(this.#next)) {
      this.#waiting.delete(this.#next);
      if (!('line' in next)) this.#held++;
      this.#buffer.push(`${'line' in next ? next.line : `{${HELD}:${this.#next}}`}\n`);
      this.#buffered += this.#buffer.at(-1)?.length ?? 0;
      this.#next++;
    }
    // A megabyte at a time: few writes, and never much text held.
    if (this.#buffered >= 1 << 20) void this.#flush();
  }

  /** Everything added so far in the file; throws what a write met. */
  async drain(): Promise<void> {
    await this.#flush();
    await this.#writing;
    if (this.#failed) throw this.#failed instanceof Error ? this.#failed : new Error(String(this.#failed));
  }

  /**
   * The manifest lines of the rows in the file, in order; `held(index)` gives the line of a row
   * kept in memory.
   */
  async *lines(held: (index: number) => string): AsyncGenerator<string> {
    await this.drain();
    if (this.#next === 0) return;
    const reader = createInterface({ input: createReadStream(this.#file, 'utf8'), crlfDelay: Infinity });
    let index = 0;
    for await (const line of reader) {
      if (index >= this.#next) break;
      yield line.startsWith(`{${HELD}:`) ? held(index) : line;
      index++;
    }
  }

  /**
   * The rows in the file as the manifest's `rows` writes them (`\n    ` before the first,
   * `,\n    ` before each other), copied as bytes without making a string of any line; undefined
   * when the file holds placeholders (then use lines()). A run rewrites its manifest while it works:
   * copying is what keeps that from making hundreds of megabytes of strings each time.
   */
  async rowBytes(): Promise<AsyncIterable<Uint8Array> | undefined> {
    await this.drain();
    if (this.#held > 0) return undefined;
    return separated(this.#file, this.#next);
  }

  async close(): Promise<void> {
    await this.#writing.catch(() => undefined);
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
    await rm(this.#file, { force: true });
  }

  #flush(): Promise<void> {
    if (this.#buffer.length === 0) return this.#writing;
    const text = this.#buffer.join('');
    this.#buffer = [];
    this.#buffered = 0;
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      try {
        this.#handle ??= await open(this.#file, 'w');
        await this.#handle.writeFile(text);
      } catch (error) {
        this.#failed = error;
      }
    });
    return this.#writing;
  }
}

const FIRST = Buffer.from('\n    ');
const NEXT = Buffer.from(',\n    ');

/** The first `count` lines of `file`, each after its separator, without their line ends. */
async function* separated(file: string, count: number): AsyncGenerator<Uint8Array> {
  if (count === 0) return;
  let lines = 0;
  let atLineStart = true;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    const parts: Uint8Array[] = [];
    let from = 0;
    while (from < chunk.length && lines < count) {
      if (atLineStart) parts.push(lines === 0 ? FIRST : NEXT);
      const end = chunk.indexOf(0x0a, from);
      if (end === -1) {
        parts.push(chunk.subarray(from));
        atLineStart = false;
        break;
      }
      parts.push(chunk.subarray(from, end));
      lines++;
      atLineStart = true;
      from = end + 1;
    }
    if (parts.length > 0) yield Buffer.concat(parts);
    if (lines >= count) return;
  }
}
