/**
 * `--rows`: only the chosen rows are planned and sent; the manifest and assets.csv still list every
 * row, the others as earlier runs left them (cached with their files, or skipped: never run), and
 * the run spends exactly what its plan said.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/plan/plan-file.js';
import { UsageError } from '../../src/errors.js';
import { FAST_VIDEO, runIn, type Workspace, workspace } from '../helpers/run-harness.js';
import { DEMO_KEY, stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const sandboxWith = sandboxesFor();

/** Three rows x (generate, upscale of it, tts): 100 + 100 + 10 = 210 credits a row. */
export const SHOOT = `version: 1
name: shoot
${FAST_VIDEO}rows:
  - { sku: A1, name: Runner }
  - { sku: B2, name: Walker }
  - { sku: C3, name: Climber }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;

const planOf = async (ws: Workspace, rows: string[]) => {
  const { plan } = await planFile(ws.pipeline, {
    cwd: ws.dir,
    allowUnpriced: false,
    out: ws.out,
    stateDir: ws.state,
    quotaUsed: 0,
    rows,
  });
  if (!plan) throw new Error('no plan');
  return plan;
};

describe('--rows', () => {
  it('sends only the chosen rows, spends what the plan said, and lists the others as earlier runs left them', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(SHOOT);

    const planA = await planOf(ws, ['A1']);
    expect(planA).toMatchObject({ rows: 1, selection: { rows: 1, ofRows: 3 }, instances: 3, credits: { total: 210 } });
    const first = await runIn(ws, sandbox, { rows: ['A1'], quotaUsed: 0 });
    expect(first.exitCode).toBe(0);
    let seen = await stats(sandbox);
    expect(seen.charges.credits).toBe(planA.credits.total);
    expect(first.manifest?.totals.requests.submits).toBe(planA.requests.submits);
    const statuses = (result: typeof first) =>
      result.manifest?.rows.map(
        (row) => `${row.key}: ${row.steps.map((step) => `${step.status}/${step.reason ?? '-'}`).join(' ')}`,
      );
    expect(statuses(first)).toEqual([
      'A1: done/- done/- done/-',
      'B2: skipped/not-selected skipped/not-selected skipped/not-selected',
      'C3: skipped/not-selected skipped/not-selected skipped/not-selected',
    ]);
    expect(first.manifest?.status).toBe('complete');
    expect(first.manifest?.totals.steps).toEqual({ done: 3, cached: 0, failed: 0, skipped: 6, deferred: 0 });
    expect(existsSync(path.join(ws.out, 'shoot', 'B2'))).toBe(false);

    // B2 and C3 by row number, then A1's earlier results are listed (not sent again).
    const planBC = await planOf(ws, ['2-3']);
    expect(planBC).toMatchObject({ rows: 2, credits: { total: 420 }, cached: { instances: 0 } });
    const charged = seen.charges.credits;
    const requests = seen.requests.total;
    const second = await runIn(ws, sandbox, { rows: ['2-3'], quotaUsed: 0 });
    expect(second.exitCode).toBe(0);
    seen = await stats(sandbox);
    expect(seen.charges.credits - charged).toBe(planBC.credits.total);
    expect(second.manifest?.totals.requests.submits).toBe(planBC.requests.submits);
    // Two rows of three submits and their downloads, nothing for A1.
    expect(seen.requests.total - requests).toBe(6);
    expect(statuses(second)).toEqual([
      'A1: cached/not-selected cached/not-selected cached/not-selected',
      'B2: done/- done/- done/-',
      'C3: done/- done/- done/-',
    ]);
    const a1 = second.manifest?.rows[0]?.steps[0];
    expect(a1?.files).toEqual([expect.objectContaining({ path: 'A1/hero.png', run_id: first.manifest?.run_id })]);
    expect(a1?.credits).toEqual({ planned: 0, used: 0, paid_total: 100, lost: 0 });
    expect(second.manifest?.totals.credits).toMatchObject({ planned: 420, used: 420, paid_total: 630 });
    expect(second.manifest?.rows[1]?.steps[0]?.files[0]?.run_id).toBe(second.manifest?.run_id);

    const sheet = readFileSync(path.join(ws.out, 'shoot', 'assets.csv'), 'utf8');
    expect(sheet).toContain('A1,Runner,cached,A1/hero.png,cached,A1/big.png,cached,A1/voice.mp3,0,210');
    expect(sheet).toContain('B2,Walker,done,B2/hero.png,done,B2/big.png,done,B2/voice.mp3,210,210');

    // Everything is there now: a run of every row sends nothing.
    const all = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(all.manifest?.totals.steps).toMatchObject({ cached: 9, done: 0 });
    expect((await stats(sandbox)).charges.credits).toBe(630);
  });

  it('lists rows never started after a stop, and rows not chosen, each in its place in the file', async () => {
    const sandbox = await sandboxWith();
    // Thirty rows of one tts step (10 credits); credits for two. More rows than the scheduler
    // takes at once, so the stop leaves some chosen rows never started.
    const voices = `version: 1
name: voices
${FAST_VIDEO}rows:
${Array.from({ length: 30 }, (_, i) => `  - { sku: R${i + 1} }`).join('\n')}
row_key: sku
steps:
  - id: voice
    tts: { text: "Meet \${{ row.sku }}" }
`;
    const ws = workspace(voices);
    (sandbox.accounts.find(DEMO_KEY) as { credits: number }).credits = 25;
    const result = await runIn(ws, sandbox, { rows: ['1-3', '5-30'], concurrency: 1, quotaUsed: 0 });
    expect(result.exitCode).toBe(4);
    const rows = result.manifest?.rows.map(
      (row) => `${row.key} ${row.steps[0]?.status}/${row.steps[0]?.reason ?? '-'}`,
    );
    expect(rows).toEqual([
      'R1 done/-',
      'R2 done/-',
      'R3 deferred/credits',
      'R4 skipped/not-selected',
      ...Array.from({ length: 26 }, (_, i) => `R${i + 5} deferred/credits`),
    ]);
    expect(result.manifest?.totals.steps).toEqual({ done: 2, cached: 0, failed: 0, skipped: 1, deferred: 27 });
    // Rows before the first one never started (the gallery's when the rest collapse): some were.
    expect(result.rowsStarted).toBeGreaterThan(4);
    expect(result.rowsStarted).toBeLessThan(30);
    expect(result.manifest?.rows[result.rowsStarted ?? 0]?.steps[0]?.started_at).toBeNull();
  });

  it('is refused before anything is written when a selector names no row', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(SHOOT);
    await expect(runIn(ws, sandbox, { rows: ['b2'] })).rejects.toThrow(
      new UsageError('--rows b2: no row has the key "b2"; did you mean "B2"?'),
    );
    await expect(runIn(ws, sandbox, { rows: ['4-5'] })).rejects.toBeInstanceOf(UsageError);
    await expect(planOf(ws, ['Z*'])).rejects.toThrow('--rows Z*: no row key matches "Z*"');
    expect(existsSync(ws.out)).toBe(false);
    expect((await stats(sandbox)).requests.total).toBe(0);
  });
});
