/**
 * One pipeline spread over 4 shards as a GitHub Actions matrix runs it: 4 processes at once
 * against one sandbox, one of them killed mid-run and run again, then `assetline merge`. The
 * merged folder is what one unsharded run of the same rows leaves, and the sandbox charged every
 * step once. A missing shard is refused by name; adding rows pays for the new rows only.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { CLI, sandboxStats, startRun, until, useSandboxProcess } from '../helpers/e2e-run.js';
import { tempDir } from '../helpers/temp-dir.js';

useSandboxProcess();

const pipeline = (name: string, rows: number) => `version: 1
name: ${name}
api: { plan: enterprise, quota: 100000, retry: { base_seconds: 0.02, cap_seconds: 0.1 } }
concurrency: 4
rows:
${Array.from({ length: rows }, (_, i) => `  - { sku: S${i}, name: "Product ${i}" }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "\${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: voice
    tts: { text: "Meet \${{ row.name }}" }
`;
// Per row: 100 + 100 + 10 = 210 credits, 3 requests.
const ROW_CREDITS = 210;

function workspace(name: string, rows: number): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'pipeline.yaml'), pipeline(name, rows));
  return dir;
}

function merge(dir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'merge', ...args], { cwd: dir, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const readManifest = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/** Each row's key with its steps' outcomes, done and cached alike ("made"), and its files. */
function made(manifest: Manifest) {
  return manifest.rows
    .map((row) => ({
      key: row.key,
      steps: row.steps.map((step) => `${step.step}:${['done', 'cached'].includes(step.status) ? 'made' : step.status}`),
      files: row.steps.flatMap((step) => step.files.map((file) => file.path)),
    }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

const shardArgs = (i: number) => ['--shard', `${i}/4`];

describe('shards and merge, end to end', () => {
  it('4 shards at once, one killed and run again, merge to what one run makes, each step charged once', async () => {
    const solo = workspace('solo', 16);
    expect((await startRun(solo).done).code).toBe(0);

    const spread = workspace('spread', 16);
    const shardJournal = path.join(spread, 'out/spread/shards/2-of-4/journal.jsonl');
    const runs = [1, 2, 3, 4].map((i) => startRun(spread, shardArgs(i)));
    // Shard 2 is killed once it has saved a result: what it made stays, the rest is left undone.
    await until(
      () => existsSync(shardJournal) && readFileSync(shardJournal, 'utf8').includes('"type":"downloaded"'),
      'a result saved by shard 2',
    );
    runs[1]?.child.kill('SIGKILL');
    const ended = await Promise.all(runs.map((run) => run.done));
    expect(ended.map((run) => run.code)).toEqual([0, null, 0, 0]);

    // Missing shard 2: refused, by name, and nothing is written.
    const shards = path.join(spread, 'out/spread/shards');
    const partial = merge(spread, ...[1, 3, 4].map((i) => path.join(shards, `${i}-of-4`)), '--out', 'partial');
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain('2-of-4');
    expect(existsSync(path.join(spread, 'partial'))).toBe(false);

    expect((await startRun(spread, shardArgs(2)).done).code).toBe(0);
    const merged = merge(spread, 'out', '--out', 'merged');
    expect(merged.code, merged.stderr).toBe(0);

    const one = readManifest(path.join(solo, 'out/solo/manifest.json'));
    const all = readManifest(path.join(spread, 'merged/spread/manifest.json'));
    expect(made(all)).toEqual(made(one));
    // Every row in exactly one shard.
    const keys = all.rows.map((row) => row.key);
    expect(new Set(keys).size).toBe(16);
    expect(keys).toHaveLength(16);
    expect(all.totals.credits.paid_total).toBe(16 * ROW_CREDITS);
    expect(all.totals.credits.paid_total).toBe(one.totals.credits.paid_total);
    for (const row of all.rows)
      for (const step of row.steps)
        for (const file of step.files) expect(existsSync(path.join(spread, 'merged/spread', file.path))).toBe(true);
    // 0 duplicate charges: every idempotency key the sandbox saw was charged once.
    const charges = Object.values((await sandboxStats()).charges.by_idempotency_key);
    expect(charges.length).toBe(2 * 16 * 3);
    expect(charges.every((count) => count === 1)).toBe(true);

    // 10 rows added: all 4 shards run again, and only the 10 new rows are paid for.
    writeFileSync(path.join(spread, 'pipeline.yaml'), pipeline('spread', 26));
    const before = Object.keys((await sandboxStats()).charges.by_idempotency_key).length;
    const again = await Promise.all([1, 2, 3, 4].map((i) => startRun(spread, shardArgs(i)).done));
    expect(again.map((run) => run.code)).toEqual([0, 0, 0, 0]);
    const after = (await sandboxStats()).charges.by_idempotency_key;
    expect(Object.keys(after).length - before).toBe(10 * 3);
    expect(Object.values(after).every((count) => count === 1)).toBe(true);
    const remerged = merge(spread, 'out', '--out', 'merged');
    expect(remerged.code, remerged.stderr).toBe(0);
    const grown = readManifest(path.join(spread, 'merged/spread/manifest.json'));
    expect(grown.rows).toHaveLength(26);
    expect(grown.totals.credits.paid_total).toBe(26 * ROW_CREDITS);
  }, 120_000);
});
