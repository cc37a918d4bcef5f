/**
 * The runner against the in-process sandbox when things go wrong: partial failure, stops on
 * credits, quota and the key, the budget, chaining after URLs expire, and a video job resumed by
 * its request_id.
 */
import { describe, expect, it } from 'vitest';
import { FAST_VIDEO, runIn, workspace } from '../helpers/run-harness.js';
import { DEMO_KEY, sleep, stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';
import { CHAIN, ONE_CLIP } from '../helpers/chain-pipeline.js';

const sandboxWith = sandboxesFor({ video: { duration_ms: 100 } });

describe('failures', () => {
  it('fails one instance, skips what depends on it, finishes the other rows (exit 1)', async () => {
    const sandbox = await sandboxWith();
    // Scale 5 passes the client (the range is not published) and the sandbox refuses it.
    const yaml = CHAIN.replace('scale: 2', 'scale: "${{ row.scale }}"')
      .replace('name: Runner }', 'name: Runner, scale: 5 }')
      .replace('name: Walker }', 'name: Walker, scale: 2 }');
    const result = await runIn(workspace(yaml), sandbox);
    expect(result.exitCode).toBe(1);
    const a1 = Object.fromEntries((result.manifest?.rows[0]?.steps ?? []).map((s) => [s.step, s]));
    expect(a1.big).toMatchObject({ status: 'failed', attempts: 1, error: { status: 400, code: 'invalid_scale' } });
    expect(a1.cutout).toMatchObject({ status: 'skipped', reason: 'upstream-failed' });
    expect(a1.voice?.status).toBe('done');
    expect(result.manifest?.rows[1]?.steps.every((s) => s.status === 'done')).toBe(true);
    expect(result.manifest?.status).toBe('partial');
  });

  it('stops at 402, defers the rest (exit 4), and a rerun after buying credits finishes without paying twice', async () => {
    const sandbox = await sandboxWith();
    (sandbox.accounts.find(DEMO_KEY) as { credits: number }).credits = 2700;
    const ws = workspace(CHAIN);
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(4);
    expect(first.manifest?.status).toBe('stopped');
    expect(first.manifest?.stopped_by).toBe('credits');
    expect(first.manifest?.totals.steps.deferred).toBeGreaterThan(0);
    (sandbox.accounts.find(DEMO_KEY) as { credits: number }).credits += 10_000;
    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    const steps = second.manifest?.totals.steps;
    expect((steps?.done ?? 0) + (steps?.cached ?? 0)).toBe(12);
    const charged = await stats(sandbox);
    expect(charged.charges.credits).toBe(5220);
    expect(Object.values(charged.charges.by_idempotency_key).every((n) => n === 1)).toBe(true);
  });

  it('stops when the daily quota is spent (exit 4) and finishes the next day', async () => {
    // The key is shared with other tools: the service has less quota left than the plan knows of.
    const sandbox = await sandboxWith({
      keys: [{ key: DEMO_KEY, name: 'demo', plan: 'pro', quota: 2, credits: 100_000 }],
    });
    const rows = ['A', 'B', 'C', 'D'].map((k) => `  - { k: ${k} }`).join('\n');
    const ws = workspace(
      `version: 1\nname: quota\n${FAST_VIDEO}rows:\n${rows}\nrow_key: k\nsteps:\n  - id: voice\n    tts: { text: "row \${{ row.k }}" }\n`,
    );
    const first = await runIn(ws, sandbox, { concurrency: 1 });
    expect(first.exitCode).toBe(4);
    expect(first.manifest).toMatchObject({
      status: 'stopped',
      stopped_by: 'quota',
      totals: { steps: { done: 2, deferred: 2 } },
    });
    sandbox.clock.advance(24 * 3_600_000);
    const next = await runIn(ws, sandbox, { concurrency: 1 });
    expect(next.exitCode).toBe(0);
    expect(next.manifest?.totals.steps).toMatchObject({ done: 2, cached: 2 });
    const charged = await stats(sandbox);
    expect(charged.charges.count).toBe(4);
    expect(Object.values(charged.charges.by_idempotency_key)).toEqual([1, 1, 1, 1]);
  });

  it('stops at once on a refused key (exit 5)', async () => {
    const sandbox = await sandboxWith();
    const result = await runIn(workspace(CHAIN), sandbox, { apiKey: 'sk-not-a-sandbox-key', quotaUsed: 0 });
    expect(result.exitCode).toBe(5);
    expect(result.manifest?.stopped_by).toBe('auth');
    expect(result.manifest?.totals.steps.done).toBe(0);
  });

  it('refuses before sending anything when the plan passes the budget (exit 3)', async () => {
    const sandbox = await sandboxWith();
    const result = await runIn(workspace(CHAIN), sandbox, { maxCredits: 5000 });
    expect(result.exitCode).toBe(3);
    expect(result.plan.reasons).toEqual([
      'needs 5,220 credits, over the budget of 5,000 (--max-credits); run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
    expect((await stats(sandbox)).requests.total).toBe(0);
  });
});

describe('resuming the next day', () => {
  it('sends an earlier step output as its local file once its URL has expired', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    // Four tries for each of the two rows' upscales.
    sandbox.faults.script(Array.from({ length: 8 }, () => ({ fault: 'status=500', path: '/v1/upscale' })));
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(1);
    sandbox.clock.advance(25 * 3_600_000);
    const next = await runIn(ws, sandbox);
    // hero's URLs have expired: had the runner sent them, the sandbox would refuse the upscale.
    expect(next.exitCode).toBe(0);
    expect(next.manifest?.totals.steps).toMatchObject({ failed: 0, done: 4, cached: 8 });
    const big = next.manifest?.rows[0]?.steps.find((step) => step.step === 'big');
    expect(big?.attempts).toBe(1);
  });
});

describe('resuming a video job', () => {
  it('polls a job submitted before an interrupt by its request_id, never submitting it again', async () => {
    // The job takes 60 s on the sandbox clock: it cannot finish before the interrupt.
    const sandbox = await sandboxWith({ video: { duration_ms: 60_000 } });
    const ws = workspace(ONE_CLIP);
    const interrupt = new AbortController();
    const first = runIn(ws, sandbox, { interrupt: interrupt.signal });
    while (((await stats(sandbox)).requests.by_path['/v1/video'] ?? 0) === 0) await sleep(20);
    interrupt.abort('SIGINT');
    const stopped = await first;
    expect(stopped.exitCode).toBe(130);
    expect(stopped.manifest?.status).toBe('interrupted');

    sandbox.clock.advance(60_000);
    const resumed = await runIn(ws, sandbox);
    expect(resumed.exitCode).toBe(0);
    const teaser = resumed.manifest?.rows[0]?.steps[0];
    expect(teaser?.status).toBe('done');
    expect(teaser?.files[0]?.media_type).toBe('video/mp4');
    const seen = await stats(sandbox);
    expect(seen.requests.by_path['/v1/video']).toBe(1);
    expect(seen.requests.by_path['/v1/video/status']).toBeGreaterThan(0);
    expect(teaser?.request_id).toBe(stopped.manifest?.rows[0]?.steps[0]?.request_id);
  });
});
