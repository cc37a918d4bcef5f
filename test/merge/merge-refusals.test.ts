/**
 * What merge refuses (exit 2, naming the folders, nothing written) and what it merges anyway,
 * marked: missing shards with --allow-missing, shards that did not complete.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { merge } from '../../src/library/merge.js';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { MergeRefusedError } from '../../src/merge/merge-refused.js';
import { assertPublishedManifestFile } from '../helpers/manifest-validator.js';
import { type ShardSpec, writeShardFolder, writeShards } from '../helpers/shard-folders.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Four shards of three rows, each in its own artifact folder, with `change` applied to some. */
async function shardsWith(changes: Readonly<Record<number, Partial<ShardSpec>>> = {}): Promise<string> {
  const root = tempDir();
  for (let index = 1; index <= 4; index++) {
    const rows = [1, 2, 3].map((i) => `SKU-${index}-${i}`);
    await writeShardFolder(path.join(root, `a${index}`), { index, count: 4, rows, ...changes[index] });
  }
  return root;
}

async function refusal(root: string, dirs: string[], options: { allowMissing?: boolean } = {}): Promise<string> {
  const out = path.join(root, 'merged');
  const error = await merge(dirs, { out, cwd: root, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MergeRefusedError);
  expect(error).toMatchObject({ code: 'merge-refused', exitCode: EXIT.usage });
  // Refused before anything is written.
  expect(existsSync(out)).toBe(false);
  return (error as Error).message;
}

const ALL = ['a1', 'a2', 'a3', 'a4'];
const shard = (root: string, index: number, count = 4) =>
  path.join(root, `a${index}`, 'shoes', 'shards', `${index}-of-${count}`);

describe('merge refuses', () => {
  it('folders of different pipelines', async () => {
    const root = await shardsWith({ 2: { pipeline: 'boots' } });
    expect(await refusal(root, ALL)).toBe(
      'merge: the folders are of different pipelines: shoes (a1/shoes/shards/1-of-4, a3/shoes/shards/3-of-4, a4/shoes/shards/4-of-4); boots (a2/boots/shards/2-of-4)',
    );
  });

  it('folders of different pipeline versions, and shards without one', async () => {
    const root = await shardsWith({ 3: { version: 'v2-77aa01' } });
    expect(await refusal(root, ALL)).toBe(
      'merge: the folders are of different pipeline versions: v1-3f9a2c (a1/shoes/shards/1-of-4, a2/shoes/shards/2-of-4, a4/shoes/shards/4-of-4); v2-77aa01 (a3/shoes/shards/3-of-4); the shards must be runs of one checkout of the pipeline and its rows',
    );
    const older = await shardsWith({ 1: { version: undefined } });
    expect(await refusal(older, ALL)).toContain('none (made by an older assetline) (a1/shoes/shards/1-of-4)');
  });

  it('shards of different counts', async () => {
    const root = await shardsWith({ 4: { index: 3, count: 3 } });
    expect(await refusal(root, ALL)).toBe(
      'merge: the folders are of different shard counts: 4 (a1/shoes/shards/1-of-4, a2/shoes/shards/2-of-4, a3/shoes/shards/3-of-4); 3 (a4/shoes/shards/3-of-3)',
    );
  });

  it('the same row in two shards with different results', async () => {
    const root = await shardsWith({
      3: { rows: ['SKU-3-1', 'SKU-1-2', 'SKU-3-3'], content: (key, step) => `another ${step} of ${key}` },
    });
    expect(await refusal(root, ALL)).toBe(
      'merge: row "SKU-1-2" is in a1/shoes/shards/1-of-4 (shard 1-of-4) and in a3/shoes/shards/3-of-4 (shard 3-of-4) with different results; give only one of them',
    );
  });

  it('a copy of a shard whose rows differ, and one shard from two runs', async () => {
    const root = await shardsWith();
    cpSync(path.join(root, 'a2'), path.join(root, 'shared'), { recursive: true });
    const copied = path.join(root, 'shared', 'shoes', 'shards', '2-of-4', 'manifest.json');
    const manifest = readFileSync(copied, 'utf8');
    writeFileSync(copied, manifest.replace('"status":"done"', '"status":"cached"'));
    expect(await refusal(root, [...ALL, 'shared'])).toBe(
      'merge: row "SKU-2-1" is in a2/shoes/shards/2-of-4 (shard 2-of-4) and in shared/shoes/shards/2-of-4 (shard 2-of-4) with different results; give only one of them',
    );
    writeFileSync(copied, manifest.replace(/"run_id": "[^"]+"/, '"run_id": "rerun-of-2"'));
    expect(await refusal(root, [...ALL, 'shared'])).toBe(
      'merge: shard 2-of-4 is there twice, from two runs: 2026-11-22T02-00-00-000Z-s2 in a2/shoes/shards/2-of-4 and rerun-of-2 in shared/shoes/shards/2-of-4; give only the one to merge',
    );
  });

  it('missing shards, naming them and the shards found', async () => {
    const root = await shardsWith();
    expect(await refusal(root, ['a1', 'a3'])).toBe(
      "merge: missing shards: 2-of-4, 4-of-4 (found 1-of-4 in a1/shoes/shards/1-of-4, 3-of-4 in a3/shoes/shards/3-of-4); give every shard's folder, or pass --allow-missing to merge what is there",
    );
  });

  it('many missing shards as a count, and a count past any matrix', async () => {
    const root = tempDir();
    await writeShardFolder(path.join(root, 'a'), { index: 1, count: 30, rows: ['A'] });
    expect(await refusal(root, ['a'])).toMatch(
      /^merge: missing shards: 2-of-30, 3-of-30, .*, 21-of-30 and 9 more \(found 1-of-30 in /,
    );
    await writeShardFolder(path.join(root, 'b'), { index: 1, count: 1_000_000, rows: ['A'] });
    expect(await refusal(root, ['b'], { allowMissing: true })).toBe(
      'merge: b/shoes/shards/1-of-1000000/manifest.json: 1000000 shards: merge takes at most 10000',
    );
  });

  it('a manifest whose file paths lead outside its folder, or a link where a file should be', async () => {
    const escape = (manifest: Manifest): Manifest => {
      const [row] = manifest.rows;
      const file = row?.steps[0]?.files[0];
      if (file) file.path = `${row?.folder}/../../../../../secrets.png`;
      return manifest;
    };
    const root = await shardsWith({ 2: { edit: escape } });
    expect(await refusal(root, ALL)).toBe(
      'merge: a2/shoes/shards/2-of-4/manifest.json: row "SKU-2-1", step "hero": file path "SKU-2-1/../../../../../secrets.png" is not <row folder>/<file>; refusing a manifest that could lead outside its folder',
    );
    const absolute = await shardsWith({
      1: {
        edit: (manifest) => {
          const row = manifest.rows[0];
          if (row) row.folder = '..';
          return manifest;
        },
      },
    });
    expect(await refusal(absolute, ALL)).toContain('folder ".." is not a folder name');

    const linked = await shardsWith();
    const hero = path.join(shard(linked, 4), 'SKU-4-2', 'hero.png');
    rmSync(hero);
    symlinkSync('/etc/hostname', hero);
    expect(await refusal(linked, ALL)).toBe(
      'merge: a4/shoes/shards/4-of-4/SKU-4-2/hero.png: not a plain file (a link?); was the shard folder copied whole?',
    );
    rmSync(hero);
    expect(await refusal(linked, ALL)).toBe(
      'merge: a4/shoes/shards/4-of-4/SKU-4-2/hero.png: listed in its manifest but not in the folder; was the shard folder copied whole?',
    );
  });

  it('folders that are not output folders, merged folders, and unsharded runs among shards', async () => {
    const root = await shardsWith();
    mkdirSync(path.join(root, 'empty', 'deep'), { recursive: true });
    expect(await refusal(root, ['a1', 'empty'])).toBe(
      'merge: empty: not an output folder: no manifest.json in it, and no shard folders (<pipeline>/shards/<i>-of-<n>/) under it',
    );
    expect(await refusal(root, ['a1', 'nowhere'])).toBe('merge: nowhere: no such folder');
    await merge(ALL, { out: path.join(root, 'done'), cwd: root });
    expect(await refusal(root, ['done'])).toBe(
      'merge: done/shoes is the result of a merge, not a shard: give the shard folders',
    );
    await writeShardFolder(path.join(root, 'plain'), { index: 1, count: 1, rows: ['X'], unsharded: true });
    expect(await refusal(root, [...ALL, 'plain'])).toBe(
      'merge: plain/shoes: not a shard (no `shard` in its manifest): an unsharded run can only be merged on its own; merge combines the shards of one `run --shard`',
    );
  });

  it('a shard still running on this machine', async () => {
    const root = await shardsWith({ 4: { status: 'running' } });
    const lock = { pid: process.pid, host: hostname(), started_at: '2026-11-22T04:00:00.000Z' };
    writeFileSync(path.join(shard(root, 4), '.lock'), JSON.stringify(lock));
    expect(await refusal(root, ALL)).toBe(
      `merge: a4/shoes/shards/4-of-4: shard 4-of-4 is still running (process ${process.pid}, started 2026-11-22T04:00:00.000Z): merge once it is over`,
    );
    // Left by a job on another machine (a killed CI job): merged as it is.
    writeFileSync(path.join(shard(root, 4), '.lock'), JSON.stringify({ ...lock, host: 'ci-runner-7' }));
    expect(await merge(ALL, { out: 'm', cwd: root })).toMatchObject({ status: 'interrupted', exit_code: 4 });
  });

  it('to write over a run’s own output folder', async () => {
    const root = await shardsWith();
    await writeShardFolder(path.join(root, 'merged'), { index: 1, count: 1, rows: ['X'], unsharded: true });
    writeFileSync(path.join(root, 'merged', 'shoes', 'journal.jsonl'), '');
    await expect(merge(ALL, { out: 'merged', cwd: root })).rejects.toThrow(
      "merge: merged/shoes holds a run's output (journal.jsonl): merge into another --out, so the run's folder stays as it is",
    );
  });
});

describe('merge, marked', () => {
  it('--allow-missing merges what is there and lists the missing shards: stopped, exit 4', async () => {
    const root = await shardsWith();
    const result = await merge(['a1', 'a3'], { out: 'merged', cwd: root, allowMissing: true });
    expect(result).toMatchObject({
      status: 'stopped',
      stopped_by: 'missing-shards',
      exit_code: EXIT.stoppedResumable,
      missing_shards: ['2-of-4', '4-of-4'],
      rows: 6,
    });
    assertPublishedManifestFile(result.manifest);
    const manifest = JSON.parse(readFileSync(result.manifest, 'utf8')) as Manifest;
    expect(manifest.missing_shards).toEqual(['2-of-4', '4-of-4']);
    expect(readFileSync(result.report, 'utf8')).toContain('Missing shards: 2-of-4, 4-of-4.');
    // Every shard there: --allow-missing changes nothing.
    expect(await merge(ALL, { out: 'all', cwd: root, allowMissing: true })).toMatchObject({
      status: 'complete',
      exit_code: 0,
      missing_shards: [],
    });
  });

  it('takes the worst status of the shards: failed steps exit 1, a stopped or unfinished shard exit 4', async () => {
    const partial = await shardsWith({ 2: { status: 'partial' } });
    expect(await merge(ALL, { out: 'm', cwd: partial })).toMatchObject({ status: 'partial', exit_code: 1 });
    const stopped = await shardsWith({ 2: { status: 'partial' }, 3: { status: 'stopped' } });
    expect(await merge(ALL, { out: 'm', cwd: stopped })).toMatchObject({
      status: 'stopped',
      stopped_by: 'credits',
      exit_code: 4,
    });
    const running = await shardsWith({ 3: { status: 'stopped' }, 4: { status: 'running' } });
    const result = await merge(ALL, { out: 'm', cwd: running });
    expect(result).toMatchObject({ status: 'interrupted', exit_code: 4 });
    expect(result.notes).toContain(
      'Shard 4-of-4 never finished its manifest (killed, or copied while running): its rows are as its last manifest write left them. Run it again to finish it, then merge again.',
    );
    // No shard ended: the merged run has no end either.
    expect(JSON.parse(readFileSync(result.manifest, 'utf8'))).toMatchObject({ finished_at: null, duration_ms: null });
  });

  it('takes a row key from the data as a key, even __proto__', async () => {
    const root = tempDir();
    await writeShardFolder(path.join(root, 'a'), { index: 1, count: 1, rows: ['__proto__', 'constructor'] });
    const result = await merge(['a'], { out: 'm', cwd: root });
    const manifest = JSON.parse(readFileSync(result.manifest, 'utf8')) as Manifest;
    expect(Object.keys(manifest.totals.credits.by_row)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).planned).toBeUndefined();
  });

  it('lists a row two shards made the same once, from the first shard', async () => {
    const root = tempDir();
    const dirs = await writeShards(root, 2, 2);
    await writeShardFolder(path.join(root, 'artifact-3'), { index: 3, count: 3, rows: ['SKU-1-1'] });
    // The same result twice (the same content) is not a conflict.
    for (const [index, dir] of dirs.entries()) {
      rmSync(dir, { recursive: true });
      await writeShardFolder(dir, {
        index: index + 1,
        count: 3,
        rows: index === 0 ? ['SKU-1-1', 'SKU-1-2'] : ['SKU-2-1'],
      });
    }
    const result = await merge([...dirs, path.join(root, 'artifact-3')], { out: 'm', cwd: root });
    const manifest = JSON.parse(readFileSync(result.manifest, 'utf8')) as Manifest;
    expect(manifest.rows.map((row) => [row.key, row.shard])).toEqual([
      ['SKU-1-1', '1-of-3'],
      ['SKU-1-2', '1-of-3'],
      ['SKU-2-1', '2-of-3'],
    ]);
    expect(manifest.merged_from?.map((entry) => entry.rows)).toEqual([2, 1, 1]);
  });
});
