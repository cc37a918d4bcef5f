/**
 * Whether the process that wrote a lock or opened a session still runs: the same test as the run
 * lock's (src/run/run-lock.ts). One on another host (a shared folder) cannot be checked: it is
 * taken to run.
 */
import { hostname } from 'node:os';

export interface ProcessId {
  readonly pid: number;
  readonly host: string;
}

export function thisProcess(): ProcessId {
  return { pid: process.pid, host: hostname() };
}

export function isAlive(owner: ProcessId): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
