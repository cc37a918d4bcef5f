/**
 * `--fit`: a sheet bigger than the quota runs over several nights, in whole rows. Nights are the
 * sandbox's clock moved on by a day; the request ledger reads the same clock. Charges are the
 * sandbox's own counters.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { planFile } from '../../src/plan/plan-file.js';
import { planText } from '../../src/plan/plan-text.js';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { resolveSelection } from '../../src/select/selection.js';
import { QUOTA_WINDOW_MS } from '../../src/catalog/limits.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { FAST_VIDEO, runIn, workspace } from '../helpers/run-harness.js';
import { DEMO_KEY, stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

// Placeholder media: every result is the same tiny file, so steps that take an image from another
// step would share one cached result across rows; these steps take only row values.
const sandboxWith = sandboxesFor({
  media: 'placeholder',
  video: { duration_ms: 100 },
  keys: [{ key: DEMO_KEY, name: 'demo', plan: 'pro', credits: 1_000_000 }],
});

/** Four steps a row, four requests: two pictures and two voice-overs, all from the row's values. */
const NIGHTLY = `version: 1
name: nightly
api: { plan: pro, retry: { base_seconds: 0.01, cap_seconds: 0.05 } }
concurrency: 8
rows: { file: rows.csv }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: detail
    generate: { model: eta-v4, prompt: "close-up of the \${{ row.name }}", width: 256, height: 256 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
  - id: tagline
    tts: { text: "The \${{ row.name }}: made to walk" }
`;
// Per row: z-image-turbo 100 + eta-v4 200 + tts-alpha 10 x 2 = 320 credits.
const ROW_CREDITS = 320;

function rowsCsv(count: number, name = (i: number) => `Shoe ${i}`): string {
  const lines = ['sku,name'];
  for (let i = 1; i <= count; i++) lines.push(`SKU-${String(i).padStart(3, '0')},${name(i)}`);
  return `${lines.join('\n')}\n`;
}

/** Each row's step statuses, as one string per row (e.g. "done done done done"). */
function rowStatuses(manifest: Manifest | undefined): Map<string, string> {
  return new Map((manifest?.rows ?? []).map((row) => [row.key, row.steps.map((step) => step.status).join(' ')]));
}

/** A picture, its upscale and a video per row: worst case 3 + 100 polls, expected 3 + 4 (FAST_VIDEO). */
const WITH_VIDEO = `version: 1
name: teasers
${FAST_VIDEO}priority: "\${{ row.urgency }}"
row_key: sku
rows:
  - { sku: A, name: Runner, urgency: 0 }
  - { sku: B, name: Walker, urgency: 9 }
  - { sku: C, name: Hiker, urgency: "" }
  - { sku: D, name: Climber, urgency: 5 }
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: teaser
    video: { model: gamma3-fast, prompt: "the \${{ row.name }} in orbit", duration: 4 }
`;
const realMedia = sandboxesFor({ video: { duration_ms: 100 } });

describe('run --fit', () => {
  it('starts rows by priority, each when the quota left covers its worst case, and gives back what a finished row did not use', async () => {
    const sandbox = await realMedia();
    const ws = workspace(WITH_VIDEO);
    // 110 left: one row's worst case (103) fits, two do not, so the second row waits for the first
    // to finish and give back what its video did not poll.
    const result = await runIn(ws, sandbox, { fit: true, quotaUsed: 890, concurrency: 4 });
    expect(result.plan.fit).toMatchObject({ rowsWithWork: 4, rowsTonight: 2, deferredRows: ['A', 'C'] });
    expect(result.exitCode).toBe(4);
    const statuses = rowStatuses(result.manifest);
    expect(statuses).toEqual(
      new Map([
        ['B', 'done done done'],
        ['D', 'done done done'],
        ['A', 'deferred deferred deferred'],
        ['C', 'deferred deferred deferred'],
      ]),
    );
    // The manifest lists rows in the order they ran; assets.csv keeps the sheet's.
    expect(result.manifest?.rows.map((row) => row.key)).toEqual(['B', 'D', 'A', 'C']);
    const csv = readFileSync(path.join(ws.out, 'teasers', 'assets.csv'), 'utf8');
    expect(
      csv
        .split(/\r?\n/)
        .map((line) => line.split(',')[0])
        .slice(1, 5),
    ).toEqual(['A', 'B', 'C', 'D']);
    const sent = result.manifest?.totals.requests.sent ?? 0;
    expect(sent).toBeLessThanOrEqual(110);
    expect((await stats(sandbox)).requests.by_account.demo).toBe(sent);

    // With --rows, only the rows chosen are fitted and run: C alone fits the same 110.
    const expansion = (await validatePipelineFile(ws.pipeline)).expansion;
    if (!expansion) throw new Error('invalid pipeline');
    const onlyC = await runIn(ws, sandbox, {
      fit: true,
      quotaUsed: 890,
      selection: resolveSelection(expansion, { rows: ['C'] }),
    });
    expect(onlyC.exitCode).toBe(0);
    expect(onlyC.plan.fit).toMatchObject({ rowsWithWork: 1, rowsTonight: 1 });
    expect(rowStatuses(onlyC.manifest).get('C')).toBe('done done done');

    // With room for every row's worst case, the last row runs; nothing is sent twice.
    const rest = await runIn(ws, sandbox, { fit: true, quotaUsed: 0 });
    expect(rest.exitCode).toBe(0);
    expect(rest.manifest?.totals.steps).toMatchObject({ done: 3, cached: 9 });
  });

  it('finishes a 300-row sheet over two nights of a 1,000-request quota in whole rows, then pays only for what changed', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(NIGHTLY, { 'rows.csv': rowsCsv(300) });
    const plan = async () =>
      (
        await planFile(ws.pipeline, {
          cwd: ws.dir,
          allowUnpriced: false,
          out: ws.out,
          stateDir: ws.state,
          fit: true,
          key: new SecretKey(DEMO_KEY),
          now: sandbox.now(),
        })
      ).plan;

    const first = await plan();
    expect(first?.fit).toMatchObject({ rowsWithWork: 300, rowsTonight: 250, deferred: { quota: 50, budget: 0 } });
    expect(first?.fit?.windowsMore).toBe(1);
    expect(first?.credits.total).toBe(250 * ROW_CREDITS);
    expect(first?.refused).toBe(false);
    expect(planText(first as NonNullable<typeof first>)).toContain(
      'fits tonight: 250 of 300 rows to send; 50 deferred (50 for the quota): SKU-251, SKU-252',
    );

    // Night 1: 250 whole rows, 1,000 requests; no row is half made.
    const night1 = await runIn(ws, sandbox, { fit: true });
    expect(night1.exitCode).toBe(4);
    const after1 = rowStatuses(night1.manifest);
    const done1 = [...after1.values()].filter((statuses) => statuses === 'done done done done').length;
    const deferred1 = [...after1.values()].filter((statuses) => statuses === 'deferred deferred deferred deferred');
    expect(done1).toBe(250);
    expect(deferred1).toHaveLength(50);
    expect(night1.manifest?.rows.find((row) => row.key === 'SKU-300')?.steps[0]?.reason).toBe('quota');
    expect((await stats(sandbox)).charges).toMatchObject({ credits: 250 * ROW_CREDITS });
    expect(night1.manifest?.totals.requests.sent).toBe(1000);

    // The plan the next evening, before the window has moved: nothing fits, one more window needed.
    const waiting = await plan();
    expect(waiting?.fit).toMatchObject({ rowsWithWork: 50, rowsTonight: 0, windowsMore: 1 });
    expect(waiting?.fit?.freeUp?.requests).toBe(1000);

    // Night 2, a day later: the 50 rows left, nothing paid twice.
    sandbox.clock.advance(QUOTA_WINDOW_MS + 60_000);
    const second = await plan();
    expect(second?.fit).toMatchObject({ rowsWithWork: 50, rowsTonight: 50, windowsMore: 0 });
    const night2 = await runIn(ws, sandbox, { fit: true });
    expect(night2.exitCode).toBe(0);
    expect(night2.manifest?.totals.steps).toMatchObject({ done: 200, cached: 1000 });
    expect((await stats(sandbox)).charges).toMatchObject({ credits: 300 * ROW_CREDITS });

    // 20 rows edited, 10 added: the plan shows exactly those 30 rows, and the run pays for them only.
    const edited = new Set([
      5, 17, 33, 48, 61, 77, 90, 104, 118, 131, 149, 160, 172, 188, 203, 219, 230, 247, 266, 299,
    ]);
    writeFileSync(
      path.join(ws.dir, 'rows.csv'),
      rowsCsv(310, (i) => (edited.has(i) ? `Boot ${i}` : `Shoe ${i}`)),
    );
    const third = await plan();
    const changed = [...edited, ...Array.from({ length: 10 }, (_, i) => 301 + i)]
      .sort((a, b) => a - b)
      .map((i) => `SKU-${String(i).padStart(3, '0')}`);
    expect(third?.rowsToSend).toEqual(changed);
    expect(third?.credits.total).toBe(30 * ROW_CREDITS);
    expect(third?.requests.submits).toBe(120);
    const charged = (await stats(sandbox)).charges.credits;
    const night3 = await runIn(ws, sandbox, { fit: true });
    expect(night3.exitCode).toBe(0);
    expect((await stats(sandbox)).charges.credits - charged).toBe(30 * ROW_CREDITS);
    expect(night3.manifest?.totals.requests.submits).toBe(120);
    expect(night3.manifest?.totals.steps).toMatchObject({ done: 120, cached: 1120 });
  }, 60_000);
});
