/**
 * The runner against the in-process sandbox: the whole chain, resuming without paying twice, the
 * content-addressed cache, partial failure, stops on credits, quota and the key, the budget,
 * chaining after URLs expire, unsafe row keys, and the key absent from every byte written.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest/manifest-schema.js';
import { FAST_VIDEO, runIn, workspace } from '../helpers/run-harness.js';
import { DEMO_KEY, sleep, stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const sandboxWith = sandboxesFor({ video: { duration_ms: 100 } });

const CHAIN = `version: 1
name: chain
${FAST_VIDEO}rows:
  - { sku: A1, name: Runner }
  - { sku: B2, name: Walker }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256, num_images: 2 }
  - id: recolor
    edit: { model: eta-edit, image: "\${{ steps.hero.outputs[1] }}", prompt: "yellow laces" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: cutout
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: teaser
    video: { model: gamma3-fast-i2v, image: "\${{ steps.hero.output }}", prompt: orbit, duration: 4 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;
// Per row: z-image-turbo 100 x 2 + eta-edit 200 + upscale 100 + remove-bg 100 + gamma3-fast-i2v 2,000 + tts-alpha 10 = 2,610.

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('a run', () => {
  it('runs the whole chain, downloads every result and writes a valid manifest', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(0);
    const out = path.join(ws.out, 'chain');
    expect(files(out).filter((f) => !f.startsWith('runs/'))).toEqual([
      'A1/big.png',
      'A1/cutout.png',
      'A1/hero-2.png',
      'A1/hero.png',
      'A1/recolor.png',
      'A1/teaser.mp4',
      'A1/voice.mp3',
      'B2/big.png',
      'B2/cutout.png',
      'B2/hero-2.png',
      'B2/hero.png',
      'B2/recolor.png',
      'B2/teaser.mp4',
      'B2/voice.mp3',
      'journal.jsonl',
      'manifest.json',
      'report.html',
    ]);
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')));
    expect(manifest.status).toBe('complete');
    expect(manifest.totals.steps).toEqual({ done: 12, failed: 0, skipped: 0, deferred: 0, cached: 0 });
    // What the runner says it used is what the sandbox charged, and the plan.
    const charged = await stats(sandbox);
    expect(manifest.totals.credits).toMatchObject({ planned: 5220, used: 5220 });
    expect(charged.charges.credits).toBe(5220);
    expect(manifest.totals.requests.sent).toBe(charged.requests.total);
    expect(Object.values(charged.charges.by_idempotency_key).every((n) => n === 1)).toBe(true);
    const big = manifest.rows[0]?.steps.find((s) => s.step === 'big');
    expect(big?.files[0]).toMatchObject({ path: 'A1/big.png', width: 512, height: 512, media_type: 'image/png' });
    expect(manifest.rows[0]?.steps.find((s) => s.step === 'teaser')?.files[0]).toMatchObject({ duration_seconds: 4 });
    expect(readdirSync(path.join(out, 'runs'))).toHaveLength(1);
  });

  it('sends nothing and pays nothing when run again unchanged', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    await runIn(ws, sandbox);
    const before = await stats(sandbox);
    const again = await runIn(ws, sandbox);
    expect(again.exitCode).toBe(0);
    expect(again.plan.credits.total).toBe(0);
    expect(again.plan.cached.instances).toBe(12);
    expect((await stats(sandbox)).requests.total).toBe(before.requests.total);
    expect(again.manifest?.totals.steps.cached).toBe(12);
    expect(again.manifest?.totals.credits.saved_by_cache).toBe(5220);
  });

  it('reuses results by content: rows reordered and a row added cost only the new row', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    await runIn(ws, sandbox);
    const charged = (await stats(sandbox)).charges.credits;
    const reordered = CHAIN.replace(
      '  - { sku: A1, name: Runner }\n  - { sku: B2, name: Walker }\n',
      '  - { sku: C3, name: Climber }\n  - { sku: B2, name: Walker }\n  - { sku: A1, name: Runner }\n',
    );
    writeFileSync(ws.pipeline, reordered);
    const result = await runIn(ws, sandbox);
    expect(result.manifest?.totals.steps).toMatchObject({ done: 6, cached: 12 });
    // Only the new row C3 is sent: its 6 steps, 2,610 credits.
    expect((await stats(sandbox)).charges.credits - charged).toBe(2610);
    expect(result.manifest?.rows.map((row) => row.key)).toEqual(['C3', 'B2', 'A1']);
  });
});

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
    expect(result.plan.reasons).toEqual(['needs 5,220 credits, over the budget of 5,000 (--max-credits)']);
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
    const ws = workspace(`version: 1
name: clip
${FAST_VIDEO}steps:
  - id: teaser
    video: { model: gamma3-fast, prompt: "a slow orbit", duration: 4 }
`);
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

describe('what is written', () => {
  it('keeps files built from row keys inside the output folder', async () => {
    const sandbox = await sandboxWith();
    const yaml = `version: 1\nname: safe\nrows:\n  - { sku: "../../../evil", name: x }\n  - { sku: "/etc/passwd", name: y }\nrow_key: sku\nsteps:\n  - id: voice\n    tts: { text: "\${{ row.name }}" }\n`;
    const ws = workspace(yaml);
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(0);
    expect(files(ws.dir).filter((f) => f.endsWith('.mp3'))).toEqual(
      ['out/safe/___.._.._evil/voice.mp3', 'out/safe/_etc_passwd/voice.mp3'].sort(),
    );
  });

  it('has the key in no byte it writes, logs or reports', async () => {
    const secret = 'sk-live-SECRET-run-key-7f3e9a';
    const sandbox = await sandboxWith({ keys: [{ key: secret, name: 'team', plan: 'pro', credits: 100_000 }] });
    sandbox.faults.script([{ fault: 'status=503' }, { fault: 'reset-after' }]);
    const ws = workspace(CHAIN);
    const result = await runIn(ws, sandbox, { apiKey: secret });
    expect(result.exitCode).toBe(0);
    const everything = [
      ...files(ws.dir).map((f) => readFileSync(path.join(ws.dir, f)).toString('latin1')),
      ...files(ws.dir),
      ws.logs.join(''),
      JSON.stringify(result),
    ].join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    expect(everything).not.toContain(secret);
    expect(statSync(ws.state).isDirectory()).toBe(true);
  });
});
