/** The request ledger: the rolling window's edges, pruning, torn lines, concurrent appends, no key on disk. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretKey } from '../../src/api/secret-key.js';
import { RequestLedger } from '../../src/state/request-ledger.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-22T10:30:00.000Z');

describe('request ledger', () => {
  it('counts the requests of the last 24 hours: 24 h + 1 s ago no longer counts', async () => {
    const ledger = new RequestLedger(tempDir(), 'k');
    await ledger.append([
      { at: NOW - DAY - 1000, kind: 'submit' },
      { at: NOW - DAY, kind: 'submit' },
      { at: NOW - DAY + 1000, kind: 'poll' },
      { at: NOW - HOUR, kind: 'submit', count: 5 },
      { at: NOW, kind: 'poll' },
    ]);
    // Only the last three: the window is (now - 24 h, now].
    expect(await ledger.countInWindow(NOW)).toBe(1 + 5 + 1);
    expect(await ledger.countInWindow(NOW + 1000)).toBe(5 + 1);
  });

  it('keeps one file per UTC hour and prunes only hours wholly outside the window', async () => {
    const ledger = new RequestLedger(tempDir(), 'k');
    await ledger.append([
      { at: Date.parse('2026-11-21T09:10:00Z'), kind: 'submit' },
      { at: Date.parse('2026-11-21T10:10:00Z'), kind: 'submit' },
      { at: Date.parse('2026-11-22T10:00:00Z'), kind: 'submit' },
    ]);
    expect(readdirSync(ledger.dir).sort()).toEqual([
      '2026-11-21T09.jsonl',
      '2026-11-21T10.jsonl',
      '2026-11-22T10.jsonl',
    ]);
    expect(await ledger.prune(NOW)).toBe(1);
    // 10:10 yesterday is 24 h 20 min ago: out of the window, but its hour (10:00-11:00) still overlaps it.
    expect(readdirSync(ledger.dir).sort()).toEqual(['2026-11-21T10.jsonl', '2026-11-22T10.jsonl']);
    expect(await ledger.countInWindow(NOW)).toBe(1);
  });

  it('reads nothing from an empty or missing ledger, and skips a line cut short by a crash', async () => {
    const ledger = new RequestLedger(tempDir(), 'k');
    expect(await ledger.countInWindow(NOW)).toBe(0);
    await ledger.append([{ at: NOW - 60_000, kind: 'submit', count: 2 }]);
    await appendFile(path.join(ledger.dir, '2026-11-22T10.jsonl'), '{"t":17638');
    expect(await ledger.countInWindow(NOW)).toBe(2);
  });

  it('loses nothing when two processes append at once', async () => {
    const stateDir = tempDir();
    const script = `
      import { RequestLedger } from ${JSON.stringify(path.resolve('dist/state/request-ledger.js'))};
      const ledger = new RequestLedger(process.argv[1], 'shared');
      for (let i = 0; i < 400; i++) await ledger.append([{ at: Date.now(), kind: 'submit' }, { at: Date.now(), kind: 'poll', count: 2 }]);
    `;
    const child = () =>
      new Promise<number | null>((resolve) => {
        spawn(process.execPath, ['--input-type=module', '-e', script, stateDir], { stdio: 'inherit' }).on(
          'exit',
          resolve,
        );
      });
    expect(await Promise.all([child(), child()])).toEqual([0, 0]);
    const ledger = new RequestLedger(stateDir, 'shared');
    // 2 processes x 400 appends x (1 + 2) requests
    expect(await ledger.countInWindow(Date.now())).toBe(2400);
    const lines = readdirSync(ledger.dir).flatMap((file) =>
      readFileSync(path.join(ledger.dir, file), 'utf8').trim().split('\n'),
    );
    expect(lines).toHaveLength(1600);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('names its folder by a hash of the key and never writes the key', async () => {
    const key = 'sk-live-ABCDEF0123456789';
    const stateDir = tempDir();
    const id = new SecretKey(key).id();
    const ledger = new RequestLedger(stateDir, id);
    await ledger.append([{ at: NOW, kind: 'submit' }]);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(id).not.toBe(new SecretKey(`${key}x`).id());
    const everything = [
      ledger.dir,
      ...readdirSync(ledger.dir).map((file) => readFileSync(path.join(ledger.dir, file), 'utf8')),
    ].join('\n');
    expect(everything).not.toContain(key);
    expect(everything).not.toContain('ABCDEF0123456789');
  });
});
