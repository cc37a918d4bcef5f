/**
 * `--shard i/n` runs, one after another into one output folder: together they cover every row
 * exactly once and cost what one unsharded run costs; each writes only its own folder, whose
 * manifest and assets.csv list only its rows; a shard run again is all cached, and rows added to
 * the sheet leave every other row where it was.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { planFile } from '../../src/plan/plan-file.js';
import { pipelineVersion } from '../../src/pipeline/pipeline-version.js';
import { shardOfKey } from '../../src/select/shard.js';
import { FAST_VIDEO, runIn, type Workspace, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const sandboxWith = sandboxesFor();

/** Rows x (generate, upscale of it, tts): 100 + 100 + 10 = 210 credits a row. */
const SHOOT = (keys: readonly string[]) => `version: 1
name: shoot
${FAST_VIDEO}rows:
${keys.map((key) => `  - { sku: ${key}, name: "Shoe ${key}" }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;

const KEYS = Array.from({ length: 10 }, (_, i) => `K${i + 1}`);
const N = 3;
const shardFolder = (ws: Workspace, index: number) => path.join(ws.out, 'shoot', 'shards', `${index}-of-${N}`);
const manifestOf = (ws: Workspace, index: number) =>
  JSON.parse(readFileSync(path.join(shardFolder(ws, index), 'manifest.json'), 'utf8')) as Manifest;
const keysIn = (index: number, keys = KEYS) => keys.filter((key) => shardOfKey(key, N) === index);

describe('--shard', () => {
  it('covers every row once over the n shards, each in its own folder, for what one run costs', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(SHOOT(KEYS));
    // Every shard has rows to run: the test means something.
    expect([1, 2, 3].map((index) => keysIn(index).length).every((count) => count > 0)).toBe(true);

    let charged = 0;
    const listed: string[] = [];
    for (let index = 1; index <= N; index++) {
      const result = await runIn(ws, sandbox, { shard: { index, count: N } });
      expect(result.exitCode).toBe(0);
      expect(result.manifestPath).toBe(path.join(shardFolder(ws, index), 'manifest.json'));
      const manifest = manifestOf(ws, index);
      expect(manifest.shard).toEqual({ index, count: N });
      expect(manifest.pipeline_version).toBe(pipelineVersion(SHOOT(KEYS)));
      // Only the shard's rows, none as "not-selected": the other rows are other folders'.
      expect(manifest.rows.map((row) => row.key)).toEqual(keysIn(index));
      expect(manifest.totals.steps).toEqual({
        done: keysIn(index).length * 3,
        cached: 0,
        failed: 0,
        skipped: 0,
        deferred: 0,
      });
      listed.push(...manifest.rows.map((row) => row.key));
      const used = manifest.totals.credits.used;
      expect(used).toBe(keysIn(index).length * 210);
      expect((await stats(sandbox)).charges.credits - charged).toBe(used);
      charged += used;
      // assets.csv and report.html beside it, with its rows only.
      const sheet = readFileSync(path.join(shardFolder(ws, index), 'assets.csv'), 'utf8')
        .trim()
        .split('\n');
      expect(sheet.slice(1).map((line) => line.split(',')[0])).toEqual(keysIn(index));
      expect(existsSync(path.join(shardFolder(ws, index), 'report.html'))).toBe(true);
      for (const key of keysIn(index))
        expect(existsSync(path.join(shardFolder(ws, index), key, 'hero.png'))).toBe(true);
    }
    expect(listed.sort()).toEqual([...KEYS].sort());
    // Nothing written where an unsharded run writes.
    expect(existsSync(path.join(ws.out, 'shoot', 'manifest.json'))).toBe(false);
    expect(existsSync(path.join(ws.out, 'shoot', 'journal.jsonl'))).toBe(false);

    // One unsharded run of the same pipeline, elsewhere, against a service of its own (this one
    // would answer the same requests from its idempotency store), costs what the shards cost.
    const other = await sandboxWith();
    const single = await runIn(workspace(SHOOT(KEYS)), other);
    expect(single.manifest?.totals.credits.used).toBe(charged);
    expect((await stats(other)).charges.credits).toBe(charged);
    expect(single.manifest?.shard).toBeUndefined();
    expect(single.manifest?.pipeline_version).toBe(pipelineVersion(SHOOT(KEYS)));
  });

  it('runs a shard again from its own cache, and keeps every row in its shard when rows are added', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(SHOOT(KEYS));
    for (let index = 1; index <= N; index++) await runIn(ws, sandbox, { shard: { index, count: N } });
    const charged = (await stats(sandbox)).charges.credits;

    const again = await runIn(ws, sandbox, { shard: { index: 2, count: N } });
    expect(again.manifest?.totals.steps).toMatchObject({ cached: keysIn(2).length * 3, done: 0 });
    expect((await stats(sandbox)).charges.credits).toBe(charged);

    // New rows at the top, in the middle and at the end: every earlier row stays in its shard, so
    // each shard's plan sends only its new rows.
    const grown = ['N1', ...KEYS.slice(0, 5), 'N2', 'N3', ...KEYS.slice(5), 'N4', 'N5'];
    writeFileSync(ws.pipeline, SHOOT(grown));
    let sent = 0;
    for (let index = 1; index <= N; index++) {
      const { plan } = await planFile(ws.pipeline, {
        cwd: ws.dir,
        allowUnpriced: false,
        out: ws.out,
        stateDir: ws.state,
        quotaUsed: 0,
        shard: { index, count: N },
      });
      const added = keysIn(index, grown).filter((key) => key.startsWith('N'));
      expect(plan?.rowsToSend).toEqual(added);
      expect(plan?.cached.rows).toBe(keysIn(index).length);
      const result = await runIn(ws, sandbox, { shard: { index, count: N } });
      expect(result.manifest?.rows.map((row) => row.key)).toEqual(keysIn(index, grown));
      expect(result.manifest?.totals.steps).toMatchObject({ done: added.length * 3, cached: keysIn(index).length * 3 });
      sent += added.length;
    }
    expect(sent).toBe(5);
    expect((await stats(sandbox)).charges.credits - charged).toBe(5 * 210);
  });

  it("with --rows runs the rows of both; the shard's other rows are listed as earlier runs left them", async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(SHOOT(KEYS));
    const own = keysIn(1);
    const [chosen] = own;
    const result = await runIn(ws, sandbox, { shard: { index: 1, count: N }, rows: [`${chosen},${keysIn(2)[0]}`] });
    expect(result.exitCode).toBe(0);
    expect(
      result.manifest?.rows.map((row) => `${row.key}: ${row.steps[0]?.status}/${row.steps[0]?.reason ?? '-'}`),
    ).toEqual(own.map((key) => (key === chosen ? `${key}: done/-` : `${key}: skipped/not-selected`)));
    expect((await stats(sandbox)).charges.credits).toBe(210);
  });

  it('refuses a shard over its share of the budget, and with --fit runs the whole rows that fit it', async () => {
    const sandbox = await sandboxWith();
    // 630 credits among 3 shards: 210 each, one row's worth.
    const ws = workspace(SHOOT(KEYS).replace('rows:', 'budget: { max_credits: 630 }\nrows:'));
    const index = [1, 2, 3].find((at) => keysIn(at).length > 1) as number;
    const refused = await runIn(ws, sandbox, { shard: { index, count: N } });
    expect(refused.exitCode).toBe(3);
    expect(refused.plan.budget).toMatchObject({ maxCredits: 210, split: { total: 630, count: N } });
    expect(refused.plan.reasons[0]).toContain(`over this shard's budget of 210 (1/${N} of budget.max_credits 630)`);
    expect((await stats(sandbox)).charges.credits).toBe(0);

    const fitted = await runIn(ws, sandbox, { shard: { index, count: N }, fit: true });
    expect(fitted.exitCode).toBe(4);
    expect(fitted.manifest?.totals.credits.used).toBe(210);
    expect(fitted.manifest?.rows.map((row) => row.key)).toEqual(keysIn(index));
    expect(fitted.manifest?.totals.steps).toMatchObject({ done: 3, deferred: (keysIn(index).length - 1) * 3 });
  });
});
