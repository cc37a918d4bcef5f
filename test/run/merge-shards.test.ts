/**
 * Merging shards the runner really made: each shard a run of its own rows (`--rows`) in its own
 * output folder and state, as a CI matrix job runs, against one sandbox; its folder then laid out
 * as `run --shard` will lay it out (shards/<i>-of-<n>/, the manifest listing only its rows, with
 * `shard` and `pipeline_version`). The merge has every file, byte for byte, and what the service
 * charged, in one manifest that `assetline report` reads.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { reportRun } from '../../src/library/report.js';
import { merge } from '../../src/library/merge.js';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { countSteps, tallyCredits } from '../../src/manifest/manifest-totals.js';
import { readManifest } from '../../src/manifest/read-manifest.js';
import { writeManifestFile } from '../helpers/manifest-file.js';
import { assertPublishedManifestFile } from '../helpers/manifest-validator.js';
import { FAST_VIDEO, runIn, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';
import { tempDir } from '../helpers/temp-dir.js';

const sandboxWith = sandboxesFor();

const SHOOT = `version: 1
name: shoot
${FAST_VIDEO}rows:
  - { sku: A1, name: Runner }
  - { sku: B2, name: Walker }
  - { sku: C3, name: Climber }
  - { sku: D4, name: Sprinter }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;

const SHARDS = [['A1', 'B2'], ['C3'], ['D4']];

/** Rewrites a run's folder as shard `index` of `count`: under shards/, its manifest listing only `rows`. */
async function asShard(out: string, index: number, count: number, rows: readonly string[]): Promise<string> {
  const pipeline = path.join(out, 'shoot');
  const shard = path.join(pipeline, 'shards', `${index}-of-${count}`);
  renameSync(pipeline, `${pipeline}.run`);
  mkdirSync(path.dirname(shard), { recursive: true });
  renameSync(`${pipeline}.run`, shard);
  const manifest = (await readManifest(path.join(shard, 'manifest.json'))) as Manifest;
  const own = manifest.rows.filter((row) => rows.includes(row.key));
  const credits = tallyCredits(own);
  const { by_model, by_step, by_row, used, paid_total, lost } = credits;
  await writeManifestFile(path.join(shard, 'manifest.json'), {
    ...manifest,
    pipeline_version: 'checkout-1',
    shard: { index, count },
    totals: {
      ...manifest.totals,
      credits: { ...manifest.totals.credits, used, paid_total, lost, by_model, by_step, by_row },
      steps: countSteps(own),
    },
    rows: own,
  });
  return out;
}

describe('merging shards the runner made', () => {
  it('has every row once, every file byte for byte, what the service charged, and reads as a report', async () => {
    const sandbox = await sandboxWith();
    const root = tempDir();
    const outs: string[] = [];
    const shards: Manifest[] = [];
    for (const [i, rows] of SHARDS.entries()) {
      const ws = workspace(SHOOT);
      const result = await runIn(ws, sandbox, { rows: [...rows], quotaUsed: 0 });
      expect(result.exitCode).toBe(0);
      outs.push(await asShard(ws.out, i + 1, SHARDS.length, rows));
      shards.push(
        (await readManifest(path.join(ws.out, 'shoot', 'shards', `${i + 1}-of-3`, 'manifest.json'))) as Manifest,
      );
    }
    const charged = (await stats(sandbox)).charges.credits;

    const result = await merge(outs, { out: path.join(root, 'merged') });
    expect(result).toMatchObject({ status: 'complete', exit_code: 0, rows: 4, missing_shards: [] });
    expect(result.credits.used).toBe(charged);
    expect(result.requests.sent).toBe(shards.reduce((sum, m) => sum + m.totals.requests.sent, 0));
    assertPublishedManifestFile(result.manifest);
    const merged = (await readManifest(result.manifest)) as Manifest;
    expect(merged.rows.map((row) => `${row.key} ${row.shard}: ${row.steps.map((s) => s.status).join(' ')}`)).toEqual([
      'A1 1-of-3: done done done',
      'B2 1-of-3: done done done',
      'C3 2-of-3: done done done',
      'D4 3-of-3: done done done',
    ]);
    let files = 0;
    for (const row of merged.rows)
      for (const step of row.steps)
        for (const file of step.files) {
          files++;
          const bytes = readFileSync(path.join(result.folder, file.path));
          expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
        }
    expect(files).toBe(12);
    expect(result.files).toMatchObject({ linked: 12, copied: 0 });

    // assets.csv: the sheet's own columns from the shards' sheets.
    const lines = parse(readFileSync(result.assets), { bom: true }) as string[][];
    expect(lines.map((line) => line.slice(0, 4))).toEqual([
      ['row', 'sku', 'name', 'hero_status'],
      ['A1', 'A1', 'Runner', 'done'],
      ['B2', 'B2', 'Walker', 'done'],
      ['C3', 'C3', 'Climber', 'done'],
      ['D4', 'D4', 'Sprinter', 'done'],
    ]);

    // `assetline report` reads the merged folder as any run's.
    const { summary, loaded } = await reportRun(result.folder, { cwd: root, html: false });
    expect(loaded.source).toBe('manifest');
    expect(summary).toMatchObject({ rows: 4, counts: { done: 12 }, credits: { used: charged } });
  });
});
