/**
 * The rows a run has settled, out of memory: each settled row becomes its manifest line (with the
 * books of its steps) and goes to a file beside the manifest, in sheet order, and its outcomes are
 * let go. So a run of 100,000 rows holds only the rows it is working on, not 300,000 outcomes;
 * the manifest is the head (tallied as rows settle) followed by this file.
 *
 * The file holds the rows exactly as the manifest's `rows` array writes them (`\n    ` before the
 * first, `,\n    ` before each other), so a manifest copies it as bytes through one reused buffer:
 * rewriting a 200 MB manifest while the run works then makes no garbage at all.
 *
 * Rows settle out of order (a slow video holds its row while later rows finish): a settled row
 * waits here, as its line, until every earlier row has settled. A row that must stay in memory
 * (a video job given up after a timeout, asked once more at the end of the run) leaves a
 * placeholder, replaced by its line when the manifest is written (then the file is read by line).
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** A settled row: its manifest line, or a row kept in memory until the end. */
export type SettledRow = { readonly line: string } | { readonly held: true };

const HELD = '{"held":';
const INDENT = '    ';
const COPY_BYTES = 1 << 20;

export class RowSpill {
  readonly #file: string;
  #handle: FileHandle | undefined;
  /** The next row (by index) to go to the file: every row before it is there. */
  #next = 0;
  readonly #waiting = new Map<number, SettledRow>();
  #buffer: string[] = [];
  #buffered = 0;
  /** Bytes of the rows before #next, once flushed. */
  #bytes = 0;
  #writing: Promise<void> = Promise.resolve();
  #failed: unknown;
  /** Placeholders in the file: while there are none, the file is the manifest's rows as they are. */
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
      const text = `${this.#next === 0 ? '\n' : ',\n'}${INDENT}${'line' in next ? next.line : `${HELD}${this.#next}}`}`;
      this.#buffer.push(text);
      this.#buffered += text.length;
      this.#bytes += Buffer.byteLength(text);
      this.#next++;
    }
    // A megabyte at a time: few writes, and never much text held.
    if (this.#buffered >= COPY_BYTES) void this.#flush();
  }

  /** Everything added so far in the file; throws what a write met. */
  async drain(): Promise<void> {
    await this.#flush();
    await this.#writing;
    if (this.#failed) throw this.#failed instanceof Error ? this.#failed : new Error(String(this.#failed));
  }

  /**
   * The rows in the file as the manifest's `rows` writes them, as bytes; undefined when the file
   * holds placeholders (then use lines()). Each piece is valid until the next is asked for.
   */
  async rowBytes(): Promise<AsyncIterable<Uint8Array> | undefined> {
    await this.drain();
    if (this.#held > 0) return undefined;
    return copied(this.#file, this.#bytes);
  }

  /**
   * The manifest line of each row in the file, in order; `held(index)` gives the line of a row
   * kept in memory.
   */
  async *lines(held: (index: number) => string): AsyncGenerator<string> {
    await this.drain();
    const count = this.#next;
    if (count === 0) return;
    const reader = createInterface({ input: createReadStream(this.#file, 'utf8'), crlfDelay: Infinity });
    let index = -1;
    for await (const text of reader) {
      // The first line is the empty one before the first row's line break.
      if (index++ < 0) continue;
      if (index > count) break;
      const line = text.slice(INDENT.length, text.endsWith(',') ? -1 : undefined);
      yield line.startsWith(HELD) ? held(index - 1) : line;
    }
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

/** The first `size` bytes of `file`, through one buffer read into again for each piece. */
async function* copied(file: string, size: number): AsyncGenerator<Uint8Array> {
  if (size === 0) return;
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(COPY_BYTES, size));
    for (let position = 0; position < size;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
