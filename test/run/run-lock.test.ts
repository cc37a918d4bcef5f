import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockedError } from '../../src/errors.js';
import { RunLock } from '../../src/run/run-lock.js';
import { tempDir } from '../helpers/temp-pipeline.js';

describe('run lock', () => {
  it('refuses a second run, naming the holder', async () => {
    const file = path.join(tempDir(), '.lock');
    const lock = await RunLock.acquire(file, new Date('2026-11-22T02:00:00Z'));
    const error = (await RunLock.acquire(file).catch((e: unknown) => e)) as LockedError;
    expect(error).toBeInstanceOf(LockedError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`process ${process.pid} on ${hostname()}, started 2026-11-22T02:00:00.000Z`);
    await lock.release();
    expect(existsSync(file)).toBe(false);
  });

  it('takes over the lock of a process that is gone', async () => {
    const file = path.join(tempDir(), '.lock');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(file, JSON.stringify({ pid: Number(gone), host: hostname(), started_at: '2026-11-21T02:00:00Z' }));
    const lock = await RunLock.acquire(file);
    // The lock is ours now: it names this process, and releasing it removes it.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await lock.release();
    expect(existsSync(file)).toBe(false);
  });
});
