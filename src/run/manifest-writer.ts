/**
 * Writing the manifest atomically (a temporary file, fsync, rename, fsync of the folder), so a
 * reader or a crash never sees half of one. While running it is rewritten at most every few
 * seconds, never per event: rewriting a growing file per event costs quadratic time.
 */
import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';

export const MANIFEST_INTERVAL_MS = 3000;

export async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const folder = await open(path.dirname(file), 'r');
  try {
    await folder.sync();
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic there.
  } finally {
    await folder.close();
  }
}

export class ThrottledWriter {
  readonly #write: () => Promise<void>;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(write: () => Promise<void>) {
    this.#write = write;
  }

  /** Ask for a write: now if the last one is old enough, else once the interval has passed. */
  request(): void {
    if (this.#timer) return;
    const wait = Math.max(0, this.#last + MANIFEST_INTERVAL_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#last = Date.now();
      this.#writing = this.#writing.then(this.#write).catch(() => undefined);
    }, wait);
    this.#timer.unref();
  }

  /** Cancel what is pending and write once more, now. */
  async final(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    await this.#write();
  }
}
