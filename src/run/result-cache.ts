/**
 * The content-addressed cache: a finished result is reused when an instance's fingerprint (its
 * operation, rendered parameters and the bytes of its inputs) matches one recorded in the journal
 * and the files are still there, whatever row it was made for. Reused files are copied into this
 * instance's place when they were made for another row.
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { JournalFile, JournalRecord } from './journal-records.js';
import type { JournalState } from './journal.js';
import { extensionOf, type OutputLayout } from './output-layout.js';

type Downloaded = Extract<JournalRecord, { type: 'downloaded' }>;

export class ResultCache {
  readonly #state: JournalState;
  readonly #layout: OutputLayout;

  constructor(state: JournalState, layout: OutputLayout) {
    this.#state = state;
    this.#layout = layout;
  }

  /** The instance's own last result, or any result with this fingerprint, whose files all exist. */
  async find(key: string, fingerprint: string): Promise<Downloaded | undefined> {
    const own = this.#state.instances.get(key)?.downloaded;
    for (const candidate of [own, this.#state.results.get(fingerprint)]) {
      if (candidate?.fingerprint === fingerprint && (await this.#present(candidate.files))) return candidate;
    }
    return undefined;
  }

  /** The files of a cached result at this instance's asset paths. */
  async place(result: Downloaded, rowFolder: string, stepId: string): Promise<JournalFile[]> {
    const placed: JournalFile[] = [];
    for (const file of result.files) {
      const target = `${this.#layout.assetBase(rowFolder, stepId, file.index)}.${extensionOf(file.media_type)}`;
      const source = this.#layout.absolute(file.path);
      if (source !== target) {
        await mkdir(path.dirname(target), { recursive: true });
        await copyFile(source, target);
      }
      placed.push({ ...file, path: this.#layout.relative(target) });
    }
    return placed;
  }

  async #present(files: readonly JournalFile[]): Promise<boolean> {
    for (const file of files) {
      const size = await stat(this.#layout.absolute(file.path)).then(
        (info) => info.size,
        () => -1,
      );
      if (size !== file.bytes) return false;
    }
    return files.length > 0;
  }
}
