/**
 * `--redo`: the chosen cached results and the steps that use them are paid for again, exactly as
 * the plan said; the earlier files are kept under runs/<run that saved them>/; the manifest says
 * which run saved each file. A redo never reuses an earlier key, and a crash in the middle of one
 * never pays twice: the next run resolves it under its key, asked again or not.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { planFile } from '../../src/plan/plan-file.js';
import { planText } from '../../src/plan/plan-text.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { FAST_VIDEO, runIn, type Workspace, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const sandboxWith = sandboxesFor();

/** Two rows x (generate, upscale of it, remove-bg of that, tts): 100 + 100 + 100 + 10 = 310 credits a row. */
const CUTOUTS = `version: 1
name: cutouts
${FAST_VIDEO}defaults: { retries: 0 }
rows:
  - { sku: A1, name: Runner }
  - { sku: B2, name: Walker }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: cut
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;

const planOf = async (ws: Workspace, selection: { rows?: string[]; redo?: string[] }) => {
  const { plan } = await planFile(ws.pipeline, {
    cwd: ws.dir,
    allowUnpriced: false,
    out: ws.out,
    stateDir: ws.state,
    quotaUsed: 0,
    ...selection,
  });
  if (!plan) throw new Error('no plan');
  return plan;
};

const chargesPerKey = async (sandbox: Sandbox) => Object.values((await stats(sandbox)).charges.by_idempotency_key);

/** Runs with the selection and checks it spent exactly its plan: credits and submits. */
async function runAsPlanned(ws: Workspace, sandbox: Sandbox, selection: { rows?: string[]; redo?: string[] }) {
  const plan = await planOf(ws, selection);
  const before = (await stats(sandbox)).charges.credits;
  const result = await runIn(ws, sandbox, { quotaUsed: 0, ...selection });
  expect(result.exitCode).toBe(0);
  expect((await stats(sandbox)).charges.credits - before).toBe(plan.credits.total);
  expect(result.manifest?.totals.requests.submits).toBe(plan.requests.submits);
  return { plan, result };
}

const statuses = (manifest: { rows: { key: string; steps: { status: string }[] }[] } | undefined) =>
  manifest?.rows.map((row) => `${row.key}: ${row.steps.map((step) => step.status).join(' ')}`);

describe('--redo', () => {
  it('pays again for the chosen step and the steps that use it, as planned, and keeps the earlier files', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CUTOUTS);
    const first = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(first.exitCode).toBe(0);
    const firstId = first.manifest?.run_id as string;
    const earlierBig = readFileSync(path.join(ws.out, 'cutouts', 'A1', 'big.png'));

    const { plan, result } = await runAsPlanned(ws, sandbox, { redo: ['A1:big'] });
    // big and cut (it uses big's output), in A1 only: 200 credits, 2 submits.
    expect(plan.redo).toEqual({ instances: 2, rows: 1, credits: 200 });
    expect(plan).toMatchObject({ credits: { total: 200 }, requests: { submits: 2 }, cached: { instances: 6 } });
    expect(planText(plan)).toContain('  redo:      2 steps in 1 row, ~200 credits (cached results paid again)');
    expect(statuses(result.manifest)).toEqual(['A1: cached done done cached', 'B2: cached cached cached cached']);

    const secondId = result.manifest?.run_id as string;
    const [hero, big, cut] = result.manifest?.rows[0]?.steps ?? [];
    expect(hero?.files[0]?.run_id).toBe(firstId);
    expect(big?.files).toEqual([expect.objectContaining({ path: 'A1/big.png', run_id: secondId })]);
    expect(big?.replaced_files).toEqual([
      expect.objectContaining({ path: `runs/${firstId}/A1/big.png`, run_id: firstId, url_expires_at: null }),
    ]);
    expect(cut?.replaced_files).toEqual([expect.objectContaining({ path: `runs/${firstId}/A1/cut.png` })]);
    expect(readFileSync(path.join(ws.out, 'cutouts', 'runs', firstId, 'A1', 'big.png'))).toEqual(earlierBig);
    expect(existsSync(path.join(ws.out, 'cutouts', 'A1', 'big.png'))).toBe(true);
    expect(big?.credits).toMatchObject({ used: 100, paid_total: 200 });

    // The same redo again: paid again (new keys), the second run's files kept under its own id.
    const third = await runAsPlanned(ws, sandbox, { redo: ['A1:big'] });
    expect(third.plan.redo).toEqual({ instances: 2, rows: 1, credits: 200 });
    expect(third.result.manifest?.rows[0]?.steps[1]?.replaced_files?.[0]?.path).toBe(`runs/${secondId}/A1/big.png`);
    expect(existsSync(path.join(ws.out, 'cutouts', 'runs', firstId, 'A1', 'big.png'))).toBe(true);
    // Every key charged once: no redo reused a key the service had answered.
    expect(await chargesPerKey(sandbox)).toEqual(Array(12).fill(1));

    // Nothing asked: nothing sent, the redone results are the cache now.
    const after = await runAsPlanned(ws, sandbox, {});
    expect(after.plan.credits.total).toBe(0);
    expect(after.result.manifest?.totals.steps).toMatchObject({ cached: 8, done: 0 });
  });

  it('takes a step in every row and whole rows, and works with --rows, each run as planned', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CUTOUTS);
    await runIn(ws, sandbox, { quotaUsed: 0 });

    const everyHero = await runAsPlanned(ws, sandbox, { redo: ['*:hero'] });
    expect(everyHero.plan.redo).toEqual({ instances: 6, rows: 2, credits: 600 });
    expect(statuses(everyHero.result.manifest)).toEqual(['A1: done done done cached', 'B2: done done done cached']);

    const rowAndSelection = await runAsPlanned(ws, sandbox, { rows: ['B2'], redo: ['B2'] });
    expect(rowAndSelection.plan).toMatchObject({ rows: 1, redo: { instances: 4, rows: 1, credits: 310 } });
    expect(statuses(rowAndSelection.result.manifest)).toEqual([
      'A1: cached cached cached cached',
      'B2: done done done done',
    ]);
    expect(rowAndSelection.result.manifest?.rows[0]?.steps[0]?.reason).toBe('not-selected');
  });

  it('refuses an unknown step, and a row --rows does not take, before anything is sent', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CUTOUTS);
    await expect(runIn(ws, sandbox, { redo: ['A1:bgi'] })).rejects.toThrow(
      new UsageError('--redo A1:bgi: no step "bgi" in the pipeline; did you mean "big"?'),
    );
    await expect(planOf(ws, { rows: ['A1'], redo: ['B2:hero'] })).rejects.toThrow(
      '--redo B2:hero: its row is not selected by --rows',
    );
    expect(existsSync(ws.out)).toBe(false);
    expect((await stats(sandbox)).requests.total).toBe(0);
  });
});

describe('a redo cut short', () => {
  it('is resolved by the next run under its key, without --redo, and paid once', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CUTOUTS);
    const first = await runIn(ws, sandbox, { quotaUsed: 0 });
    const firstId = first.manifest?.run_id as string;

    // The redo of A1's voice is charged and its answer lost; with retries: 0 it fails on the spot.
    sandbox.faults.script([{ fault: 'reset-after', path: '/v1/tts' }]);
    const cut = await runIn(ws, sandbox, { quotaUsed: 0, redo: ['A1:voice'] });
    expect(cut.exitCode).toBe(1);
    expect(cut.manifest?.rows[0]?.steps[3]).toMatchObject({ status: 'failed', ambiguous_attempts: 1 });
    // The earlier file was set aside before the intent, and is kept.
    expect(existsSync(path.join(ws.out, 'cutouts', 'runs', firstId, 'A1', 'voice.mp3'))).toBe(true);

    // Not asked again: the unfinished redo is still planned (it may cost), and resolved by replay.
    const plan = await planOf(ws, {});
    expect(plan.redo).toEqual({ instances: 1, rows: 1, credits: 10 });
    const resumed = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(resumed.exitCode).toBe(0);
    expect(statuses(resumed.manifest)).toEqual(['A1: cached cached cached done', 'B2: cached cached cached cached']);
    const seen = await stats(sandbox);
    expect(seen.idempotent_replays).toBe(1);
    expect(await chargesPerKey(sandbox)).toEqual(Array(9).fill(1));
    expect(seen.charges.credits).toBe(620 + 10);
    expect(resumed.manifest?.rows[0]?.steps[3]?.credits).toMatchObject({ paid_total: 20 });

    // Finished now: the next plan has nothing to redo.
    expect((await planOf(ws, {})).redo.instances).toBe(0);
  });

  it('is resolved, not started again, when the next run asks for it again', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CUTOUTS);
    await runIn(ws, sandbox, { quotaUsed: 0 });
    sandbox.faults.script([{ fault: 'reset-after', path: '/v1/tts' }]);
    expect((await runIn(ws, sandbox, { quotaUsed: 0, redo: ['A1:voice'] })).exitCode).toBe(1);
    const again = await runIn(ws, sandbox, { quotaUsed: 0, redo: ['A1:voice'] });
    expect(again.exitCode).toBe(0);
    expect((await stats(sandbox)).idempotent_replays).toBe(1);
    expect(await chargesPerKey(sandbox)).toEqual(Array(9).fill(1));
  });
});
