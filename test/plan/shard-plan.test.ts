/**
 * `plan --shard i/n` and `plan --shards n` on a small pipeline, as the command prints them: the
 * shard's rows, its share of the quota and the budget and the verdict on that share; and all n
 * side by side, with totals, evenness, the JSON and the exit code.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/io.js';
import { run } from '../../src/commands/plan.js';
import { UsageError } from '../../src/errors.js';
import type { PlanJson } from '../../src/plan/plan-json.js';
import type { ShardsJson } from '../../src/plan/shards-json.js';
import { shardOfKey } from '../../src/select/shard.js';
import { tempDir } from '../helpers/temp-pipeline.js';

/** Twelve rows of generate (100 credits) and tts (10): 110 credits and 2 requests a row. */
const KEYS = Array.from({ length: 12 }, (_, i) => `P${String(i + 1).padStart(2, '0')}`);
const PIPELINE = (extra = '') => `version: 1
name: shoot
api: { plan: pro, quota: 40${extra} }
budget: { max_credits: 2000 }
rows:
${KEYS.map((key) => `  - { sku: ${key} }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe \${{ row.sku }}" }
  - id: voice
    tts: { text: "Meet \${{ row.sku }}" }
`;

/** Rows by shard of 4 (index 0 unused): P01..P12 hash to 1, 3, 4 and 4 rows. */
const ROWS_OF_4 = [1, 2, 3, 4].map((index) => KEYS.filter((key) => shardOfKey(key, 4) === index).length);

async function plan(args: string[], extra = ''): Promise<{ code: number; stdout: string }> {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'shoot.yaml'), PIPELINE(extra));
  let stdout = '';
  const io: CommandIo = {
    stdout: (chunk) => (stdout += chunk),
    stderr: () => undefined,
    cwd,
    env: {},
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  const code = await run(['shoot.yaml', ...args], io);
  return { code, stdout };
}

describe('plan --shard i/n', () => {
  it("plans the shard's rows with 1/n of the quota left and of the budget", async () => {
    expect(ROWS_OF_4).toEqual([1, 3, 4, 4]);
    const { code, stdout } = await plan(['--shard', '2/4', '--quota-used', '0']);
    expect(code).toBe(0);
    expect(stdout).toContain('3 of 12 rows (shard 2/4), 6 step instances to run');
    expect(stdout).toContain(
      "quota:     pro plan, 40 requests per 24 h; 0 used in the last 24 h (--quota-used); 40 left; this shard's share: 10 (1/4, --shard 2/4)",
    );
    expect(stdout).toContain(
      "budget:    330 of 500 credits (66%), this shard's share: 1/4 of 2,000 from budget.max_credits (--shard 2/4)",
    );
    expect(stdout).toContain('OK: shard 2/4 fits its share of the budget and of the quota left today.');
  });

  it('says the shard in its JSON, and refuses on its share, not on the whole', async () => {
    const { code, stdout } = await plan(['--shard', '3/4', '--quota-used', '34', '--json']);
    const json = JSON.parse(stdout) as PlanJson;
    expect(json.shard).toEqual({
      index: 3,
      count: 4,
      rows: 4,
      folder: 'shards/3-of-4',
      quota_share: 1,
      quota_per_window: 10,
      quota_source: 'split',
      budget_share: 500,
      budget_source: 'split',
    });
    expect(json).toMatchObject({ rows: 4, selection: { rows: 4, of_rows: 12 }, requests: { submits: 8 } });
    expect(json.budget).toEqual({ max_credits: 500, source: 'pipeline', split: { total: 2000, count: 4 } });
    // 8 requests fit the 6 the key has left, not the shard's 1 (6 / 4).
    expect(code).toBe(3);
    expect(json.reasons).toEqual([
      "needs 8 requests, this shard's share is 1 (1/4 of 6 left of 40 today); run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)",
    ]);
  });

  it('takes --max-credits as its own budget, and api.quota_per_shard as its quota', async () => {
    const { stdout } = await plan(
      ['--shard', '3/4', '--quota-used', '0', '--max-credits', '400'],
      ', quota_per_shard: 40',
    );
    expect(stdout).toContain("this shard's quota: 40 (api.quota_per_shard, --shard 3/4)");
    expect(stdout).toContain('over the budget of 400 (--max-credits)');
    expect(stdout).toContain(
      "budget:    440 of 400 credits (110%), from --max-credits, this shard's own budget (--shard 3/4)",
    );
  });

  it('intersects with --rows, and names both', async () => {
    const own = KEYS.filter((key) => shardOfKey(key, 4) === 3);
    const { stdout } = await plan(['--shard', '3/4', '--rows', `${own[0]},P01`, '--quota-used', '0']);
    expect(stdout).toContain('1 of 12 rows (--rows; shard 3/4 has 4), 2 step instances to run');
  });

  it('is a usage error together with --shards', async () => {
    await expect(plan(['--shard', '1/4', '--shards', '4'])).rejects.toThrow(
      new UsageError('plan: choose one of --shard i/n (one shard) and --shards n (all n side by side)'),
    );
    await expect(plan(['--shards', '0'])).rejects.toThrow('--shards expects a whole number of shards from 1 to 256');
  });
});

describe('plan --shards n', () => {
  it('shows every shard side by side with its share, the totals and how even they are', async () => {
    const { code, stdout } = await plan(['--shards', '4', '--quota-used', '0']);
    expect(code).toBe(0);
    expect(stdout).toContain('Plan for shoot (shoot.yaml) in 4 shards (--shards 4)');
    const table = stdout.split('\n').filter((line) => /^ {2}(shard|\d+\/4|total) /.test(line));
    expect(table.map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ['shard', 'rows', 'steps', 'cached', 'credits', 'requests', 'quota share', 'budget share', 'fits'],
      ['1/4', '1', '2', '0', '110', '2', '10', '500', 'yes'],
      ['2/4', '3', '6', '0', '330', '6', '10', '500', 'yes'],
      ['3/4', '4', '8', '0', '440', '8', '10', '500', 'yes'],
      ['4/4', '4', '8', '0', '440', '8', '10', '500', 'yes'],
      ['total', '12', '24', '0', '1,320', '24', '40', '2,000'],
    ]);
    expect(stdout).toContain(
      'evenness:  rows 1 to 4 (max/mean 1.33); credits 110 to 440 (max/mean 1.33); requests 2 to 8 (max/mean 1.33)',
    );
    expect(stdout).toContain("40 left; each shard's share: 10 (1/4)");
    expect(stdout).toContain("budget:    2,000 credits from budget.max_credits; each shard's share: 500 (1/4)");
    expect(stdout).toContain('OK: every shard fits its share of the budget and of the quota left today.');
  });

  it('exits 3 when any shard would be refused, saying which and why', async () => {
    const { code, stdout } = await plan(['--shards', '4', '--quota-used', '12']);
    expect(code).toBe(3);
    expect(stdout).toMatch(/^ {2}3\/4 .* no \(quota\)$/m);
    expect(stdout).toMatch(/^ {2}2\/4 .* yes$/m);
    expect(stdout).toContain('REFUSED: 2 of 4 shards would be refused, nothing was sent:');
    expect(stdout).toContain("  - shard 3/4: needs 8 requests, this shard's share is 7 (1/4 of 28 left of 40 today)");
  });

  it('prints a shards array in snake_case with --json', async () => {
    const { code, stdout } = await plan(['--shards', '4', '--quota-used', '0', '--max-credits', '400', '--json']);
    expect(code).toBe(3);
    const json = JSON.parse(stdout) as ShardsJson;
    expect(json).toMatchObject({
      pipeline: 'shoot',
      shard_count: 4,
      rows: 12,
      totals: { rows: 12, steps: 24, credits: 1320, requests: 24, quota_shares: 40, budget_shares: 1600 },
      evenness: {
        rows: { min: 1, max: 4, mean: 3, max_over_mean: 1.33 },
        credits: { min: 110, max: 440, mean: 330, max_over_mean: 1.33 },
      },
      quota: { limit: 40, remaining: 40, per_shard: 10, per_shard_source: 'split' },
      budget: { max_credits: 400, source: 'flag', per_shard: 400, split: false },
      refused: true,
      refused_shards: [3, 4],
    });
    expect(json.shards.map((shard) => [shard.index, shard.rows, shard.credits, shard.fits_budget])).toEqual([
      [1, 1, 110, true],
      [2, 3, 330, true],
      [3, 4, 440, false],
      [4, 4, 440, false],
    ]);
    expect(json.shards[2]).toMatchObject({
      count: 4,
      folder: 'shards/3-of-4',
      rows_to_send: 4,
      steps: 8,
      cached_steps: 0,
      submits: 8,
      polls_expected: 0,
      requests: 8,
      quota_share: 10,
      budget_share: 400,
      fits_quota: true,
      refused: true,
      deferred_rows: null,
    });
  });
});
