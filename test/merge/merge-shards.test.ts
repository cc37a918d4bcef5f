/**
 * Merging the shards of one run: one folder laid out as a run lays it out, every row once with the
 * shard that made it, the files linked and the same bytes, totals that are the shards' sums, and
 * the same bytes again when merged again (but `merged_at`).
 */
import { cpSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { merge } from '../../src/library/merge.js';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { assertPublishedManifestFile } from '../helpers/manifest-validator.js';
import { PIPELINE_NAME, VERSION, writeShardFolder, writeShards } from '../helpers/shard-folders.js';
import { tempDir } from '../helpers/temp-dir.js';

const readManifest = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

describe('merging four shards', () => {
  it('writes one folder: each row once with its shard, the files linked, totals summed, schema-valid', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 4, 3);
    const shards = dirs.map((dir) =>
      readManifest(path.join(dir, PIPELINE_NAME, 'shards', ...shardOf(dir), 'manifest.json')),
    );
    const out = path.join(root, 'merged');
    const result = await merge(dirs, { out, cwd: root });

    const folder = path.join(out, PIPELINE_NAME);
    expect(result).toMatchObject({
      pipeline: PIPELINE_NAME,
      status: 'complete',
      exit_code: 0,
      folder,
      manifest: path.join(folder, 'manifest.json'),
      assets: path.join(folder, 'assets.csv'),
      report: path.join(folder, 'report.html'),
      missing_shards: [],
      rows: 12,
      steps: { done: 24, failed: 0, skipped: 0, deferred: 0, cached: 0 },
      files: { linked: 24, copied: 0, unchanged: 0 },
    });
    assertPublishedManifestFile(result.manifest);
    const merged = readManifest(result.manifest);
    expect(merged.rows.map((row) => [row.key, row.shard])).toEqual(
      [1, 2, 3, 4].flatMap((index) => [1, 2, 3].map((i) => [`SKU-${index}-${i}`, `${index}-of-4`])),
    );
    expect(merged.merged_from).toEqual(
      [1, 2, 3, 4].map((index) => ({
        shard: `${index}-of-4`,
        run_id: shards[index - 1]?.run_id,
        status: 'complete',
        exit_code: 0,
        rows: 3,
        dir: `../../artifact-${index}/${PIPELINE_NAME}/shards/${index}-of-4`,
      })),
    );
    expect(merged.pipeline_version).toBe(VERSION);
    expect(merged.run_id).toMatch(/^merge-[0-9a-f]{12}$/);
    expect(merged.started_at).toBe('2026-11-22T01:00:00.000Z');
    expect(merged.finished_at).toBe('2026-11-22T04:10:00.000Z');

    // Totals: the sums of the shards'.
    const sum = (value: (m: Manifest) => number) => shards.reduce((total, m) => total + value(m), 0);
    const { credits, requests, steps, quota } = merged.totals;
    expect(credits.planned).toBe(sum((m) => m.totals.credits.planned));
    expect(credits.used).toBe(sum((m) => m.totals.credits.used));
    expect(credits.saved_by_cache).toBe(sum((m) => m.totals.credits.saved_by_cache));
    expect(credits.paid_total).toBe(sum((m) => m.totals.credits.paid_total ?? 0));
    expect(credits.lost).toBe(0);
    expect(credits.by_model).toEqual({
      'z-image-turbo': { planned: 1200, used: 1200 },
      'tts-alpha': { planned: 120, used: 120 },
    });
    expect(credits.by_step).toEqual({ hero: { planned: 1200, used: 1200 }, voice: { planned: 120, used: 120 } });
    expect(Object.keys(credits.by_row)).toHaveLength(12);
    expect(credits.by_row['SKU-3-2']).toEqual({ planned: 110, used: 110 });
    for (const field of [
      'sent',
      'planned',
      'planned_submits',
      'planned_polls',
      'submits',
      'polls',
      'other',
      'retries',
    ] as const)
      expect(requests[field]).toBe(sum((m) => m.totals.requests[field] ?? 0));
    expect(steps).toEqual({ done: 24, failed: 0, skipped: 0, deferred: 0, cached: 0 });
    // The tightest quota any shard saw, not a sum.
    expect(quota).toEqual({ plan: 'pro', limit: 1000, used_24h: 400, remaining: 600, refused_at: null });

    // The files: hard links to the shards' files, the same bytes.
    for (const row of merged.rows)
      for (const step of row.steps)
        for (const file of step.files) {
          const target = path.join(folder, file.path);
          const index = row.shard?.split('-')[0] ?? '';
          const source = path.join(root, `artifact-${index}`, PIPELINE_NAME, 'shards', `${index}-of-4`, file.path);
          expect(readFileSync(target)).toEqual(readFileSync(source));
          expect(statSync(target).ino).toBe(statSync(source).ino);
        }

    // assets.csv: the rows in the manifest's order, with their own cells from the shards' sheets.
    const lines = parse(readFileSync(result.assets), { bom: true }) as string[][];
    expect(lines[0]).toEqual([
      'row',
      'name',
      'size',
      'hero_status',
      'hero',
      'voice_status',
      'voice',
      'credits_run',
      'credits_total',
    ]);
    expect(lines.slice(1).map((line) => line[0])).toEqual(merged.rows.map((row) => row.key));
    expect(lines[1]).toEqual([
      'SKU-1-1',
      'Shoe SKU-1-1',
      '7',
      'done',
      'SKU-1-1/hero.png',
      'done',
      'SKU-1-1/voice.mp3',
      '110',
      '110',
    ]);

    // report.html: the merged run, with where it came from.
    const html = readFileSync(result.report, 'utf8');
    expect(html).toContain(`<h1>${PIPELINE_NAME} <span class="status complete">complete (exit 0)</span></h1>`);
    expect(html).toContain('Merged from 4 shards: 1-of-4 complete');
    expect(html).toContain('SKU-4-3/voice.mp3');
  });

  it('is the same bytes when merged twice, into two folders or the same one, but merged_at', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 3, 4);
    const first = await merge(dirs, { out: path.join(root, 'one'), cwd: root });
    const second = await merge(dirs, { out: path.join(root, 'two'), cwd: root });
    const again = await merge(dirs, { out: path.join(root, 'one'), cwd: root });
    expect(again.files).toMatchObject({ linked: 0, copied: 0, unchanged: 24 });
    const text = (file: string) => readFileSync(file, 'utf8').replace(/"merged_at": "[^"]+"/, '"merged_at": "-"');
    // merged_from names each shard folder relative to the merged one: the same from one/ and two/.
    expect(text(second.manifest)).toBe(text(first.manifest));
    expect(text(again.manifest)).toBe(text(first.manifest));
    expect(readFileSync(first.manifest, 'utf8')).toMatch(/"merged_at": "\d{4}-\d\d-\d\dT/);
    for (const file of ['assets.csv', 'report.html'])
      expect(readFileSync(path.join(second.folder, file))).toEqual(readFileSync(path.join(first.folder, file)));
  });

  it('replaces a file that differs from the manifest, and leaves the merged folder whole after a rerun', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 2, 2);
    const out = path.join(root, 'merged');
    const first = await merge(dirs, { out, cwd: root });
    // A file in the merged folder changed by hand: a copy, not the link.
    const changed = path.join(first.folder, 'SKU-1-1', 'hero.png');
    writeFileSync(changed + '.new', 'not the result');
    renameSync(changed + '.new', changed);
    const again = await merge(dirs, { out, cwd: root });
    expect(again.files).toMatchObject({ linked: 1, unchanged: 7 });
    expect(readFileSync(changed, 'utf8')).toBe(
      readFileSync(path.join(dirs[0] as string, PIPELINE_NAME, 'shards', '1-of-2', 'SKU-1-1', 'hero.png'), 'utf8'),
    );
  });
});

describe('shards not quite as a run leaves them', () => {
  it('reads a manifest laid out otherwise whole, and leaves blank the sheet cells of a shard without assets.csv', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 3, 2);
    const shard = (index: number) => path.join(root, `artifact-${index}`, PIPELINE_NAME, 'shards', `${index}-of-3`);
    // Edited by hand and saved pretty-printed.
    const file = path.join(shard(1), 'manifest.json');
    writeFileSync(file, JSON.stringify(readManifest(file), null, 2));
    rmSync(path.join(shard(2), 'assets.csv'));
    const result = await merge(dirs, { out: 'm', cwd: root });
    expect(result).toMatchObject({ status: 'complete', rows: 6 });
    expect(result.notes).toContain(
      'artifact-2/shoes/shards/2-of-3/assets.csv is missing: the rows of shard 2-of-3 have blank sheet columns here.',
    );
    const lines = parse(readFileSync(result.assets), { bom: true }) as string[][];
    expect(lines.map((line) => line.slice(0, 3))).toEqual([
      ['row', 'name', 'size'],
      ['SKU-1-1', 'Shoe SKU-1-1', '7'],
      ['SKU-1-2', 'Shoe SKU-1-2', '7'],
      ['SKU-2-1', '', ''],
      ['SKU-2-2', '', ''],
      ['SKU-3-1', 'Shoe SKU-3-1', '7'],
      ['SKU-3-2', 'Shoe SKU-3-2', '7'],
    ]);
  });
});

describe('a merge that stops', () => {
  it('leaves the earlier merge as it was when interrupted', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 2, 2);
    const first = await merge(dirs, { out: 'm', cwd: root });
    const before = readFileSync(first.manifest, 'utf8');
    const stop = new AbortController();
    stop.abort('SIGINT');
    await expect(merge(dirs, { out: 'm', cwd: root, signal: stop.signal })).rejects.toBe('SIGINT');
    expect(readFileSync(first.manifest, 'utf8')).toBe(before);
    // The lock is let go: the next merge goes through.
    expect(await merge(dirs, { out: 'm', cwd: root })).toMatchObject({ status: 'complete' });
  });
});

describe('what merge accepts as a shard folder', () => {
  it('takes a shard folder itself, a shared --out holding every shard, and the same shard twice', async () => {
    const root = tempDir();
    const shared = path.join(root, 'out');
    for (let index = 1; index <= 3; index++)
      await writeShardFolder(shared, { index, count: 3, rows: [`R${index}a`, `R${index}b`] });
    const shardFolder = path.join(shared, PIPELINE_NAME, 'shards', '2-of-3');
    // Into the shared out itself: out/shoes/ beside out/shoes/shards/.
    const result = await merge(['out', shardFolder, path.join(shared, PIPELINE_NAME)], { out: shared, cwd: root });
    expect(result).toMatchObject({ status: 'complete', rows: 6 });
    expect(result.merged_from.map((entry) => entry.dir)).toEqual(['shards/1-of-3', 'shards/2-of-3', 'shards/3-of-3']);
    // A copy of a shard (an artifact downloaded beside the shared folder) is the same shard run.
    cpSync(path.join(shared, PIPELINE_NAME, 'shards', '3-of-3'), path.join(root, 'artifact', '3-of-3'), {
      recursive: true,
    });
    const withCopy = await merge(['artifact', 'out'], { out: path.join(root, 'other'), cwd: root });
    expect(withCopy.merged_from.map((entry) => entry.dir)).toEqual([
      '../../out/shoes/shards/1-of-3',
      '../../out/shoes/shards/2-of-3',
      '../../artifact/3-of-3',
    ]);
    expect(withCopy.run_id).toBe(result.run_id);
    // Again, with the earlier merge's manifest beside shards/: not taken for a shard.
    const again = await merge(['out'], { out: shared, cwd: root });
    expect(again.run_id).toBe(result.run_id);
  });

  it('merges one unsharded output folder on its own, as shard 1-of-1', async () => {
    const root = tempDir();
    await writeShardFolder(path.join(root, 'run'), { index: 1, count: 1, rows: ['A', 'B'], unsharded: true });
    cpSync(path.join(root, 'run'), path.join(root, 'copy'), { recursive: true });
    const result = await merge(['run', 'copy'], { out: 'merged', cwd: root });
    expect(result).toMatchObject({
      status: 'complete',
      rows: 2,
      merged_from: [{ shard: '1-of-1', dir: '../../run/shoes' }],
    });
  });
});

function shardOf(artifact: string): string[] {
  const index = artifact.slice(artifact.lastIndexOf('-') + 1);
  return [`${index}-of-4`];
}
