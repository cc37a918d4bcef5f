/**
 * Never pay twice where failures stack, one scripted regression test per way it broke: an attempt
 * charged without an answer and then a failure, an answer whose result could not be saved (and one
 * whose URL expired before it could be), and a video job whose polls met the daily quota.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ONE_CLIP } from '../helpers/chain-pipeline.js';
import { FAST_VIDEO, runIn, workspace } from '../helpers/run-harness.js';
import { sandboxesFor } from '../helpers/sandboxes.js';
import { DEMO_KEY, stats } from '../helpers/sandbox-http.js';

const sandboxWith = sandboxesFor({ video: { duration_ms: 100 } });

/** Two rows x (generate, tts) with no retries: 100 + 10 credits a row. */
const NO_RETRIES = `version: 1
name: books
${FAST_VIDEO}defaults: { retries: 0 }
rows:
  - { sku: A1 }
  - { sku: B2 }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of \${{ row.sku }}", width: 256, height: 256 }
  - id: voice
    tts: { text: "Meet \${{ row.sku }}" }
`;

const chargesPerKey = async (sandbox: Sandbox) => Object.values((await stats(sandbox)).charges.by_idempotency_key);

describe('an attempt charged without an answer, then a failure', () => {
  it('is sent again under the same key on the next run, and paid once', async () => {
    const sandbox = await sandboxWith();
    // The charge happens, the answer is lost; with retries: 0 the step fails on the spot.
    sandbox.faults.script([{ fault: 'reset-after', path: '/v1/generate' }]);
    const ws = workspace(NO_RETRIES);
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(1);
    const a1 = first.manifest?.rows[0]?.steps[0];
    expect(a1).toMatchObject({ status: 'failed', ambiguous_attempts: 1, error: { code: 'connection_reset' } });

    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    const seen = await stats(sandbox);
    expect(seen.idempotent_replays).toBe(1);
    expect(seen.charges.count).toBe(4);
    expect(await chargesPerKey(sandbox)).toEqual([1, 1, 1, 1]);
    expect(seen.charges.credits).toBe(220);
    expect(second.manifest?.totals.credits.paid_total).toBe(220);
    // The replayed answer says 100 (used in this run, as far as the client can tell); paid once.
    expect(second.manifest?.rows[0]?.steps[0]?.credits).toMatchObject({ paid_total: 100, lost: 0 });
  });

  it('keeps the key through a reset, a 500, a replay lost on the way back, until an answer settles it', async () => {
    const sandbox = await sandboxWith();
    sandbox.faults.script([
      { fault: 'reset-after', path: '/v1/tts' },
      { fault: 'status=500', path: '/v1/tts' },
      { fault: 'reset-after', path: '/v1/tts' },
    ]);
    const ws = workspace(NO_RETRIES.replace('rows:\n  - { sku: A1 }\n  - { sku: B2 }', 'rows:\n  - { sku: A1 }'));
    const results = [];
    for (let run = 0; run < 4; run++) results.push((await runIn(ws, sandbox)).exitCode);
    // Reset (charged), 500, the replay reset, then the replay answered: done on the fourth run.
    expect(results).toEqual([1, 1, 1, 0]);
    const seen = await stats(sandbox);
    expect(seen.faults.reset_after).toBe(2);
    expect(await chargesPerKey(sandbox)).toEqual([1, 1]);
    expect(seen.charges.credits).toBe(110);
  });

  it('moves to a new key only after a definite refusal', async () => {
    const sandbox = await sandboxWith();
    const account = sandbox.accounts.find(DEMO_KEY) as { credits: number };
    account.credits = 50;
    const ws = workspace(NO_RETRIES.replace('rows:\n  - { sku: A1 }\n  - { sku: B2 }', 'rows:\n  - { sku: A1 }'));
    const first = await runIn(ws, sandbox, { concurrency: 1 });
    expect(first.exitCode).toBe(4);
    account.credits = 10_000;
    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    // The 402 under the first key is not replayed: the second run used a new one and was served.
    const seen = await stats(sandbox);
    expect(seen.requests.by_status['402']).toBe(1);
    expect(seen.charges.count).toBe(2);
  });
});

describe('an answer whose result could not be saved', () => {
  const oneRow = NO_RETRIES.replace('rows:\n  - { sku: A1 }\n  - { sku: B2 }', 'rows:\n  - { sku: A1 }');

  it('is downloaded by the next run from the journaled URL, never sent again', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(oneRow);
    // A file where the row folder should be: every result of the row fails to be written.
    mkdirSync(path.join(ws.out, 'books'), { recursive: true });
    writeFileSync(path.join(ws.out, 'books', 'A1'), 'in the way');
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(1);
    const hero = first.manifest?.rows[0]?.steps[0];
    expect(hero).toMatchObject({ status: 'failed', error: { kind: 'storage' }, credits: { used: 100 } });
    expect(first.manifest?.totals.credits.used).toBe(110);

    rmSync(path.join(ws.out, 'books', 'A1'));
    const before = (await stats(sandbox)).requests.total;
    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    expect((await stats(sandbox)).requests.total).toBe(before);
    expect((await stats(sandbox)).charges.count).toBe(2);
    expect(second.manifest?.rows[0]?.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(second.manifest?.totals.credits).toMatchObject({ used: 0, paid_total: 110, lost: 0 });
  });

  it('is booked as lost when its URL expired first, and the work is done (and paid) once more', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(oneRow);
    mkdirSync(path.join(ws.out, 'books'), { recursive: true });
    writeFileSync(path.join(ws.out, 'books', 'A1'), 'in the way');
    expect((await runIn(ws, sandbox)).exitCode).toBe(1);
    rmSync(path.join(ws.out, 'books', 'A1'));
    sandbox.clock.advance(25 * 3_600_000);

    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    const seen = await stats(sandbox);
    expect(seen.charges.count).toBe(4);
    expect(seen.charges.credits).toBe(220);
    const credits = second.manifest?.totals.credits;
    expect(credits).toMatchObject({ used: 110, paid_total: 220, lost: 110 });
    const hero = second.manifest?.rows[0]?.steps[0];
    expect(hero?.losses).toEqual([expect.objectContaining({ credits: 100, reason: expect.stringMatching(/expired/) })]);

    // The books survive the journal's compaction on the next open.
    const third = await runIn(ws, sandbox);
    expect(third.manifest?.totals.credits).toMatchObject({ used: 0, paid_total: 220, lost: 110 });
    expect(third.manifest?.rows[0]?.steps[0]?.status).toBe('cached');
  });
});

describe('the budget', () => {
  it('counts every credit paid, also for a result that could not be saved', async () => {
    const sandbox = await sandboxWith();
    // Planned at 50 (the pipeline's price), charged 100 by the service. Nine rows, one request at
    // a time: rows 1-8 start at once (8 x 50 = 400 reserved), row 9 when the first of them settles.
    // That one paid 100 for a result its blocked folder could not take: 100 paid + 350 still
    // reserved + 50 > 450, so row 9 must wait for a bigger budget. Counting only saved results
    // (0 + 350 + 50 = 400) would have started it.
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c03030' } })
      .png()
      .toBuffer();
    const rows = Array.from({ length: 9 }, (_, i) => `  - { sku: R${i + 1} }`).join('\n');
    const ws = workspace(
      `version: 1\nname: books\nbudget: { max_credits: 450 }\npricing: { remove-bg: 50 }\nconcurrency: 1\ndefaults: { retries: 0 }\nrows:\n${rows}\nrow_key: sku\nsteps:\n  - id: cut\n    remove-bg: { image: ./shoe.png }\n`,
      { 'shoe.png': png },
    );
    mkdirSync(path.join(ws.out, 'books'), { recursive: true });
    for (let i = 1; i <= 8; i++) writeFileSync(path.join(ws.out, 'books', `R${i}`), 'in the way');
    const result = await runIn(ws, sandbox);
    const last = result.manifest?.rows[8]?.steps[0];
    expect(last).toMatchObject({ status: 'deferred', reason: 'budget' });
    expect(result.manifest?.totals.steps.failed).toBe(8);
    expect(result.manifest?.totals.credits.used).toBe(800);
  });
});

describe('a video job whose polls meet the daily quota', () => {
  it('stops resumable (exit 4) and the next window polls the stored job instead of paying for a new one', async () => {
    // A Pro key with 3 requests left: submit, poll, poll, then 429.
    const sandbox = await sandboxWith({
      keys: [{ key: DEMO_KEY, name: 'demo', plan: 'pro', quota: 3, credits: 100_000 }],
      video: { duration_ms: 60_000 },
    });
    const ws = workspace(ONE_CLIP);
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(4);
    expect(first.manifest).toMatchObject({ status: 'stopped', stopped_by: 'quota' });
    const teaser = first.manifest?.rows[0]?.steps[0];
    expect(teaser).toMatchObject({ status: 'deferred', reason: 'quota' });
    expect(teaser?.request_id).toMatch(/./);
    // The service's word, not the local count: nothing left, and when it said so.
    expect(first.manifest?.totals.quota).toMatchObject({ remaining: 0, refused_at: expect.any(String) });
    expect(first.manifest?.totals.quota.refused_at).not.toBeNull();

    sandbox.clock.advance(24 * 3_600_000);
    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    const done = second.manifest?.rows[0]?.steps[0];
    expect(done).toMatchObject({ status: 'done', request_id: teaser?.request_id });
    expect(done?.files[0]?.media_type).toBe('video/mp4');
    const seen = await stats(sandbox);
    expect(seen.requests.by_path['/v1/video']).toBe(1);
    expect(seen.charges.count).toBe(1);
    expect(second.manifest?.totals.credits).toMatchObject({ paid_total: seen.charges.credits, lost: 0 });
  });

  it('books video jobs given up after a timeout that finished after all: paid, saved as extra files, once', async () => {
    // Jobs take a minute of sandbox time: every poll of the first run times out, three jobs in all.
    const sandbox = await sandboxWith({ video: { duration_ms: 60_000 } });
    const ws = workspace(`version: 1
name: slow
api:
  plan: pro
  video: { poll_interval_seconds: 0.05, expected_seconds: 0.1, timeout_seconds: 0.2 }
  retry: { base_seconds: 0.01, cap_seconds: 0.05 }
steps:
  - id: teaser
    video: { model: gamma3-fast, prompt: "a slow orbit", duration: 4 }
`);
    const first = await runIn(ws, sandbox);
    expect(first.exitCode).toBe(1);
    const failed = first.manifest?.rows[0]?.steps[0];
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'video_timeout' } });
    expect(failed?.request_ids).toHaveLength(3);

    sandbox.clock.advance(60_000);
    const second = await runIn(ws, sandbox);
    expect(second.exitCode).toBe(0);
    const done = second.manifest?.rows[0]?.steps[0];
    // The last job is polled again (not a fourth submission), the two given up are collected.
    expect(done).toMatchObject({ status: 'done', request_id: failed?.request_ids[2] });
    expect(done?.extra_files).toHaveLength(2);
    const seen = await stats(sandbox);
    expect(seen.requests.by_path['/v1/video']).toBe(3);
    expect(done?.credits.paid_total).toBe(seen.charges.credits);
    expect(second.manifest?.totals.credits.paid_total).toBe(seen.charges.credits);

    // Booked once: a third run asks nothing and pays nothing.
    const third = await runIn(ws, sandbox);
    expect(third.manifest?.rows[0]?.steps[0]).toMatchObject({
      status: 'cached',
      credits: { paid_total: seen.charges.credits },
    });
    expect((await stats(sandbox)).requests.total).toBe(seen.requests.total);
  });
});
