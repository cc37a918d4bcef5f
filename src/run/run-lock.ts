/**
 * One run per output folder. The lock file holds the holder's PID, host and start time; a second
 * run is refused with them (exit 2). A lock left by a process that is gone (killed, crashed) is
 * taken over.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { LockedError } from '../errors.js';

export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  readonly started_at: string;
}

export class RunLock {
  readonly #file: string;
  readonly #info: LockInfo;

  private constructor(file: string, info: LockInfo) {
    this.#file = file;
    this.#info = info;
  }

  static async acquire(file: string, now: Date = new Date()): Promise<RunLock> {
    const info: LockInfo = { pid: process.pid, host: hostname(), started_at: now.toISOString() };
    for (let tries = 0; tries < 2; tries++) {
      try {
        await writeFile(file, `${JSON.stringify(info)}\n`, { flag: 'wx' });
        return new RunLock(file, info);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readLock(file);
      if (holder && isAlive(holder)) {
        throw new LockedError(
          `another run is using ${file.replace(/\/\.lock$/, '')}: process ${holder.pid} on ${holder.host}, started ${holder.started_at}; wait for it to finish, or stop it`,
        );
      }
      // The holder is gone: its lock is stale.
      await rm(file, { force: true });
    }
    throw new LockedError(`could not take the lock ${file}: another run took it at the same moment`);
  }

  async release(): Promise<void> {
    const holder = await readLock(this.#file);
    if (holder?.pid === this.#info.pid && holder.started_at === this.#info.started_at)
      await rm(this.#file, { force: true });
  }
}

/** Who holds the lock of an output folder, and whether that process still runs (for reports). */
export async function lockHolder(file: string): Promise<(LockInfo & { alive: boolean }) | undefined> {
  const info = await readLock(file);
  return info && { ...info, alive: isAlive(info) };
}

async function readLock(file: string): Promise<LockInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(file, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(info: LockInfo): boolean {
  // A lock from another machine (a shared folder) cannot be checked: treat it as held.
  if (info.host !== hostname()) return true;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
