/**
 * Opening a saved state: the logs of ended sessions taken in once (a killed process's, a closed
 * one's), a running session's left alone, files nobody needs tidied away, a damaged state refused
 * with the way out, and the start-up lock waited for or taken over from a process that is gone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AssetlineError, LockedError } from '../../src/errors.js';
import type { LogRecord } from '../../src/sandbox/persist/log-records.js';
import { openState, STATE_FILE } from '../../src/sandbox/persist/open-state.js';
import { SandboxStateError } from '../../src/sandbox/persist/state-error.js';
import { lockState } from '../../src/sandbox/persist/state-lock.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY = 24 * 3_600_000;
const T0 = 1_800_000_000_000;
/** A process that has exited: its pid is not running. */
const deadPid = spawnSync(process.execPath, ['-e', '']).pid as number;

function writeSession(dir: string, n: number, records: LogRecord[], files: string[] = []): void {
  const base = path.join(dir, 'sessions', String(n));
  mkdirSync(path.join(base, 'files'), { recursive: true });
  writeFileSync(path.join(base, 'log.jsonl'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  for (const file of files) writeFileSync(path.join(base, 'files', file), 'bytes');
}

const owner = (pid: number): LogRecord => ({ t: 'owner', pid, host: hostname(), started_at: T0 });
const photo = (n: number, key: string): LogRecord => ({
  t: 'create',
  account: 'demo',
  at: T0,
  credits: 100,
  key,
  answer: { status: 200, body: { key } },
  files: [{ id: `img_${key}`, type: 'image/png', at: T0, source: { file: `sessions/${n}/files/img_${key}.png` } }],
});

async function open(dir: string, now = T0 + 1000) {
  const opened = await openState(dir, now, DAY);
  return { opened, begun: async (origin = 'http://127.0.0.1:4000') => (await opened.begin(origin)).close(now) };
}

describe('opening a saved state', () => {
  it('starts empty, then keeps the origin of its first sandbox', async () => {
    const dir = tempDir();
    const first = await open(dir);
    expect(first.opened.session).toBe(1);
    expect(first.opened.data.origin).toBeUndefined();
    await first.begun('http://127.0.0.1:4000');
    await first.opened.release();
    const second = await open(dir);
    expect(second.opened.session).toBe(2);
    await second.begun('http://127.0.0.1:5000');
    await second.opened.release();
    expect(second.opened.data.origin).toBe('http://127.0.0.1:4000');
    expect(JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8'))).toMatchObject({
      origin: 'http://127.0.0.1:4000',
      next_session: 3,
    });
  });

  it('takes in a killed session once, keeps the files it answered with, tidies away the rest', async () => {
    const dir = tempDir();
    // Killed: no closed record, its process gone. It saved img_b.png but was killed before its line.
    writeSession(dir, 1, [owner(deadPid), photo(1, 'a')], ['img_a.png', 'img_b.png', 'img_c.png.tmp']);
    const { opened, begun } = await open(dir);
    expect(opened.data.charges.by_idempotency_key).toEqual({ a: 1 });
    expect(opened.data.absorbed).toEqual([1]);
    await begun();
    await opened.release();
    expect(existsSync(path.join(dir, 'sessions/1/files/img_a.png'))).toBe(true);
    expect(existsSync(path.join(dir, 'sessions/1/files/img_b.png'))).toBe(false);
    expect(existsSync(path.join(dir, 'sessions/1/files/img_c.png.tmp'))).toBe(false);
    expect(existsSync(path.join(dir, 'sessions/1/log.jsonl'))).toBe(false);

    const again = await open(dir);
    expect(again.opened.data.charges.count).toBe(1);
    await again.opened.release();
  });

  it('does not count a session twice when the start that took it in was killed before deleting its log', async () => {
    const dir = tempDir();
    writeSession(dir, 1, [owner(deadPid), photo(1, 'a')], ['img_a.png']);
    const first = await open(dir);
    // Killed after writing state.json, before tidying: write it as begin() would, and stop there.
    writeFileSync(path.join(dir, STATE_FILE), JSON.stringify({ ...first.opened.data, origin: 'http://127.0.0.1:1' }));
    await first.opened.release();
    expect(existsSync(path.join(dir, 'sessions/1/log.jsonl'))).toBe(true);
    const second = await open(dir);
    expect(second.opened.data.charges.count).toBe(1);
    await second.begun();
    await second.opened.release();
    expect(existsSync(path.join(dir, 'sessions/1/log.jsonl'))).toBe(false);
  });

  it("leaves a running session alone (another run's), and takes in a closed one of this process", async () => {
    const dir = tempDir();
    writeSession(dir, 1, [owner(process.pid), photo(1, 'running')], ['img_running.png']);
    writeSession(dir, 2, [owner(process.pid), photo(2, 'closed'), { t: 'closed', at: T0 }], ['img_closed.png']);
    const { opened, begun } = await open(dir);
    expect(opened.data.charges.by_idempotency_key).toEqual({ closed: 1 });
    expect(opened.session).toBe(3);
    await begun();
    await opened.release();
    expect(existsSync(path.join(dir, 'sessions/1/log.jsonl'))).toBe(true);
    expect(existsSync(path.join(dir, 'sessions/1/files/img_running.png'))).toBe(true);
  });

  it('refuses a damaged state.json or log, saying which and how to start afresh', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, STATE_FILE), '{"version": 1, "next_ses');
    const error = await openState(dir, T0, DAY).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SandboxStateError);
    expect(error).toBeInstanceOf(AssetlineError);
    expect(error).toMatchObject({ code: 'sandbox-state-unreadable', exitCode: 2 });
    expect((error as Error).message).toContain(`${dir} has a damaged state.json`);
    expect((error as Error).message).toContain('Delete that folder to start the sandbox afresh');
    // The lock was let go: the next start is not kept waiting.
    expect(existsSync(path.join(dir, 'lock'))).toBe(false);

    writeFileSync(path.join(dir, STATE_FILE), '{"version": 2}');
    await expect(openState(dir, T0, DAY)).rejects.toThrow(/damaged state\.json \(version/);

    const other = tempDir();
    writeSession(other, 1, [owner(deadPid)]);
    writeFileSync(path.join(other, 'sessions/1/log.jsonl'), '{"t":"request"}\n{"t":"closed","at":1}\n');
    await expect(openState(other, T0, DAY)).rejects.toThrow(/damaged log, sessions\/1\/log\.jsonl/);
  });
});

describe('the start-up lock', () => {
  it('is waited for while another start-up holds it, and taken over from a process that is gone', async () => {
    const file = path.join(tempDir(), 'lock');
    const release = await lockState(file);
    await expect(lockState(file, 100)).rejects.toBeInstanceOf(LockedError);
    const waiting = lockState(file);
    await release();
    await (
      await waiting
    )();
    writeFileSync(file, JSON.stringify({ pid: deadPid, host: hostname(), started_at: 'then' }));
    await (
      await lockState(file, 100)
    )();
    expect(existsSync(file)).toBe(false);
  });
});
