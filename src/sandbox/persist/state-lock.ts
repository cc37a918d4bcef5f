/**
 * The start-up lock of a saved state: held only while a sandbox reads the state, writes it back
 * and opens its session (milliseconds), so two runs starting at once take turns; the sessions
 * themselves then run side by side, each writing its own log. The run lock's pattern
 * (src/run/run-lock.ts), except that a held lock is waited for rather than refused: a lock left by
 * a process that is gone is taken over.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockedError } from '../../errors.js';
import { isAlive, thisProcess } from './process-alive.js';

/** How long to wait for another start-up, which takes milliseconds unless it hangs. */
const WAIT_MS = 30_000;
const RETRY_MS = 20;
/** A lock file with nothing readable in it yet is another process's very first instant, or a crash's leftover. */
const UNREADABLE_STALE_MS = 5_000;

export async function lockState(file: string, waitMs = WAIT_MS): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitMs;
  const mine = { ...thisProcess(), started_at: new Date().toISOString() };
  for (;;) {
    try {
      await writeFile(file, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      return () => release(file, mine.started_at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isStale(file)) {
      await rm(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new LockedError(
        `another sandbox has been starting on ${file.replace(/[\\/]lock$/, '')} for ${waitMs / 1000} s; if no run is starting, delete ${file}`,
      );
    }
    await sleep(RETRY_MS);
  }
}

async function isStale(file: string): Promise<boolean> {
  const holder = await readHolder(file);
  if (holder) return !isAlive(holder);
  const info = await stat(file).catch(() => undefined);
  return info === undefined || Date.now() - info.mtimeMs > UNREADABLE_STALE_MS;
}

async function release(file: string, startedAt: string): Promise<void> {
  const holder = await readHolder(file);
  if (holder?.pid === process.pid && holder.started_at === startedAt) await rm(file, { force: true });
}

async function readHolder(file: string): Promise<{ pid: number; host: string; started_at: string } | undefined> {
  try {
    const holder = JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown; host?: unknown; started_at?: unknown };
    return typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.started_at === 'string'
      ? { pid: holder.pid, host: holder.host, started_at: holder.started_at }
      : undefined;
  } catch {
    return undefined;
  }
}
