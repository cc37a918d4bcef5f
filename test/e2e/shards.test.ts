/**
 * `--shard` and `--shards` spawned as a matrix job runs them: a bad spec is exit 2 with the form
 * expected, before anything is sent or written; `plan --shards 4 --json` is one object with a
 * `shards` array; `run --dry-run --shard` prints the shard's plan, as `plan --shard` does.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, useCountingService } from '../helpers/counting-service.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'sk-test-SHARD-e2e-0123456789';

const service = useCountingService();

function assetline(dir: string, args: string[]) {
  return spawnCli(args, { cwd: dir, env: { ASSETLINE_BASE_URL: service.baseUrl, ASSETLINE_API_KEY: KEY } });
}

function workspace(): string {
  const dir = tempDir();
  writeFileSync(
    path.join(dir, 'shoot.yaml'),
    `version: 1
name: shoot
api: { plan: pro }
budget: { max_credits: 10000 }
rows:
${Array.from({ length: 20 }, (_, i) => `  - { sku: SKU-${i + 1} }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe \${{ row.sku }}" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}" }
`,
  );
  return dir;
}

describe('--shard and --shards on the command line', () => {
  it('refuses a bad --shard with exit 2 and the form expected: nothing sent, no output folder', async () => {
    const dir = workspace();
    service.hits = 0;
    const bad = ['0/4', '5/4', '1/0', 'a/b', '1/257', '2', '1/4/2'];
    const runs = await Promise.all(bad.map((spec) => assetline(dir, ['run', 'shoot.yaml', '--shard', spec])));
    for (const [at, run] of runs.entries()) {
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `assetline: --shard expects i/n, whole numbers with 1 <= i <= n <= 256, such as 2/4 (the second of 4 shards), got "${bad[at]}"\n`,
      );
      expect(run.stdout).toBe('');
    }
    for (const args of [
      ['plan', 'shoot.yaml', '--shard', '5/4'],
      ['run', 'shoot.yaml', '--dry-run', '--shard', '0/4'],
      ['run', 'shoot.yaml', '--sandbox', '--shard', '2'],
      ['plan', 'shoot.yaml', '--shards', '257'],
      ['plan', 'shoot.yaml', '--shards', '4', '--shard', '1/4'],
    ]) {
      const { code, stderr } = await assetline(dir, args);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^assetline: (--shards? expects|plan: choose one of --shard)/);
    }
    expect(service.hits).toBe(0);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
    expect(existsSync(path.join(dir, '.assetline'))).toBe(false);
  });

  it('prints every shard side by side with plan --shards 4 --json', async () => {
    const dir = workspace();
    const { code, stdout } = await assetline(dir, [
      'plan',
      'shoot.yaml',
      '--shards',
      '4',
      '--json',
      '--quota-used',
      '0',
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as {
      shards: { index: number; count: number; rows: number; credits: number; requests: number }[];
      totals: { rows: number; credits: number; requests: number };
    };
    expect(json).toMatchObject({
      pipeline: 'shoot',
      shard_count: 4,
      rows: 20,
      totals: { rows: 20, steps: 40, credits: 4000, requests: 40, quota_shares: 1000, budget_shares: 10000 },
      quota: { limit: 1000, remaining: 1000, per_shard: 250, per_shard_source: 'split' },
      budget: { max_credits: 10000, source: 'pipeline', per_shard: 2500, split: true },
      refused: false,
      refused_shards: [],
    });
    expect(json.shards).toHaveLength(4);
    for (const [at, shard] of json.shards.entries()) {
      expect(shard).toMatchObject({
        index: at + 1,
        count: 4,
        folder: `shards/${at + 1}-of-4`,
        credits: shard.rows * 200,
        requests: shard.rows * 2,
        quota_share: 250,
        budget_share: 2500,
        fits_quota: true,
        fits_budget: true,
        refused: false,
      });
      expect(Object.keys(shard)).toEqual(expect.arrayContaining(['rows_to_send', 'cached_steps', 'polls_expected']));
    }
    expect(json.shards.reduce((sum, shard) => sum + shard.rows, 0)).toBe(20);
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['evenness', 'warnings']));
    expect(service.hits).toBe(0);
  });

  it('plans one shard alike with plan --shard and run --dry-run --shard', async () => {
    const dir = workspace();
    const args = ['--shard', '3/4', '--json', '--quota-used', '0'];
    const plan = await assetline(dir, ['plan', 'shoot.yaml', ...args]);
    const dry = await assetline(dir, ['run', 'shoot.yaml', '--dry-run', ...args]);
    expect(plan.code).toBe(0);
    expect(dry.stdout).toBe(plan.stdout);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      shard: { index: 3, count: 4, folder: 'shards/3-of-4', quota_share: 250, budget_share: 2500 },
    });
    expect(service.hits).toBe(0);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
