/**
 * A stop that stops: after the first 429 (quota), 402 (credits) or interrupt nothing more is sent
 * but what was already on the wire; the stop is said once; the quota line tells the service's
 * truth; and every run ends with its verdict, whatever broke (the key, the disk, the journal).
 */
import { closeSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { runIn, workspace } from '../helpers/run-harness.js';
import { sandboxesFor } from '../helpers/sandboxes.js';
import { DEMO_KEY, sleep, stats } from '../helpers/sandbox-http.js';

const sandboxWith = sandboxesFor();

/** `rows` rows of one tts step each (10 credits), four requests at a time. */
function voices(rows: number, extra = ''): string {
  const list = Array.from({ length: rows }, (_, i) => `  - { k: R${i + 1} }`).join('\n');
  return `version: 1\nname: voices\napi: { plan: pro }\nconcurrency: 4\n${extra}rows:\n${list}\nrow_key: k\nsteps:\n  - id: voice\n    tts: { text: "row \${{ row.k }}" }\n`;
}

const CONCURRENCY = 4;

describe('after the first refusal', () => {
  it('sends nothing more than was on the wire when the quota runs out (429), and says so once', async () => {
    const sandbox = await sandboxWith({
      keys: [{ key: DEMO_KEY, name: 'demo', plan: 'pro', quota: 10, credits: 100_000 }],
    });
    const ws = workspace(voices(60));
    const result = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(result.exitCode).toBe(4);
    const seen = await stats(sandbox);
    // The first 429, plus at most the other requests already in flight when it came.
    expect(seen.requests.by_status['429']).toBeGreaterThanOrEqual(1);
    expect(seen.requests.by_status['429']).toBeLessThanOrEqual(CONCURRENCY);
    expect(seen.requests.total).toBeLessThanOrEqual(10 + CONCURRENCY);
    expect(ws.logs.filter((line) => line.includes('quota is spent')).length).toBe(1);
    expect(result.manifest?.totals.steps).toMatchObject({ done: 10, deferred: 50 });
  });

  it('sends nothing more than was on the wire when the credits run out (402)', async () => {
    const sandbox = await sandboxWith();
    (sandbox.accounts.find(DEMO_KEY) as { credits: number }).credits = 100;
    const ws = workspace(voices(60));
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(4);
    expect(result.manifest?.stopped_by).toBe('credits');
    const seen = await stats(sandbox);
    expect(seen.requests.by_status['402']).toBeLessThanOrEqual(CONCURRENCY);
    expect(seen.requests.total).toBeLessThanOrEqual(10 + CONCURRENCY);
    expect(ws.logs.filter((line) => line.includes('out of credits')).length).toBe(1);
  });

  it('tells the quota as the service did, in the manifest and in the next plan', async () => {
    const sandbox = await sandboxWith({
      keys: [{ key: DEMO_KEY, name: 'demo', plan: 'pro', quota: 3, credits: 100_000 }],
    });
    const ws = workspace(voices(8));
    const first = await runIn(ws, sandbox);
    expect(first.manifest?.totals.quota).toMatchObject({ remaining: 0, refused_at: expect.any(String) });
    // Right after: the ledger remembers the refusal, so the plan refuses and nothing is sent.
    const before = (await stats(sandbox)).requests.total;
    const next = await runIn(ws, sandbox);
    expect(next.exitCode).toBe(3);
    expect(next.plan.quota).toMatchObject({ remaining: 0, refusedAt: expect.any(Number) });
    expect((await stats(sandbox)).requests.total).toBe(before);
  });

  it('starts nothing new after an interrupt, even after an earlier stop, and exits 130', async () => {
    const sandbox = await sandboxWith({ faults: { latency_ms: 50 } });
    const ws = workspace(voices(40));
    const interrupt = new AbortController();
    const running = runIn(ws, sandbox, { interrupt: interrupt.signal });
    while (sandbox.stats.requests < 2) await sleep(5);
    interrupt.abort('SIGINT');
    const sentAtInterrupt = sandbox.stats.requests;
    const result = await running;
    expect(result.exitCode).toBe(130);
    expect(sandbox.stats.requests).toBeLessThanOrEqual(sentAtInterrupt + CONCURRENCY);
    expect(result.manifest?.status).toBe('interrupted');
  });
});

describe('every run ends with its verdict', () => {
  it('refuses a key that cannot be a header value before sending anything (exit 5 from the library)', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(voices(12));
    const result = await runIn(ws, sandbox, { apiKey: 'abc\ndef', quotaUsed: 0 });
    expect(result.exitCode).toBe(5);
    expect(result.manifest?.totals.steps.deferred).toBe(12);
    expect(sandbox.stats.requests).toBe(0);
    expect(readdirSync(path.join(ws.out, 'voices'))).not.toContain('.lock');
    expect(JSON.stringify(result.manifest)).not.toContain('abc\ndef');
  });

  it('refuses an output folder that cannot be written, naming it, before sending anything', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(voices(2));
    // A file where the folder should be (root ignores permissions, a file in the way never).
    writeFileSync(ws.out, 'not a folder');
    const error = await runIn(ws, sandbox).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect(String((error as Error).message)).toContain(path.join(ws.out, 'voices'));
    expect(sandbox.stats.requests).toBe(0);
  });

  it('stops starting work when the journal cannot be written, keeps what is journaled, and exits 4', async () => {
    const sandbox = await sandboxWith({ faults: { latency_ms: 20 } });
    const ws = workspace(voices(40));
    mkdirSync(path.join(ws.out, 'voices'), { recursive: true });
    const running = runIn(ws, sandbox);
    while (sandbox.stats.requests < 4) await sleep(5);
    // The journal's file descriptor taken away under the run: its next write fails (EBADF).
    closeSync(journalDescriptor(path.join(ws.out, 'voices', 'journal.jsonl')));
    const result = await running;
    expect(result.exitCode).toBe(4);
    expect(result.manifest?.stopped_by).toBe('storage');
    expect(ws.logs.filter((line) => line.includes('cannot be written')).length).toBe(1);
    expect(sandbox.stats.requests).toBeLessThan(40);
  });
});

/** This process's descriptor of the journal file (Linux: /proc/self/fd). */
function journalDescriptor(file: string): number {
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) return Number(fd);
    } catch {
      // A descriptor closed while listing.
    }
  }
  throw new Error(`no descriptor for ${file}`);
}
