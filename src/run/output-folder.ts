/**
 * Taking the output folder for a run: make it, lock it, open and replay its journal. A folder that
 * cannot be written (read-only, no permission, a file in the way) is a usage error naming the
 * folder, before anything is sent; never an internal error with a stack trace.
 */
import { mkdir } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { describeStorageError, storageCode } from '../storage-errors.js';
import { Journal, type JournalState } from './journal.js';
import type { OutputLayout } from './output-layout.js';
import { RunLock } from './run-lock.js';

export interface ClaimedFolder {
  readonly lock: RunLock;
  readonly journal: Journal;
  readonly state: JournalState;
}

export async function claimOutputFolder(
  layout: OutputLayout,
  options: { readonly fresh: boolean; readonly now: number },
): Promise<ClaimedFolder> {
  const lock = await unwritable(layout, async () => {
    await mkdir(layout.dir, { recursive: true });
    return RunLock.acquire(layout.lock);
  });
  try {
    const { journal, state } = await unwritable(layout, () => Journal.open(layout.journal, options));
    return { lock, journal, state };
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

async function unwritable<T>(layout: OutputLayout, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (storageCode(error) === undefined) throw error;
    throw new UsageError(
      `the output folder ${layout.dir} cannot be written (${describeStorageError(error)}); nothing was sent. Choose another with --out, or fix its permissions`,
    );
  }
}
