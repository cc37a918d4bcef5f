/** `assetline plan`, spawned as a user runs it: exit codes, the contract's JSON, the ledger, nothing sent. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, useCountingService } from '../helpers/counting-service.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { RequestLedger } from '../../src/state/request-ledger.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY = 'sk-test-PLAN-e2e-0123456789';

const service = useCountingService();

function assetline(args: string[], env: Record<string, string> = {}) {
  return spawnCli(args, { cwd: ROOT, env: { ASSETLINE_BASE_URL: service.baseUrl, ...env } });
}

function pipeline(budget: number): string {
  const file = path.join(tempDir(), 'shoot.yaml');
  writeFileSync(
    file,
    `version: 1
name: shoot
api: { plan: pro }
budget: { max_credits: ${budget} }
rows: [{ sku: A }, { sku: B }]
row_key: sku
steps:
  - id: hero
    generate: { model: kappa-2-pro, prompt: "shoe \${{ row.sku }}", num_images: 2 }
  - id: clip
    video: { model: beta-v2.5-turbo-pro-i2v, image: "\${{ steps.hero.output }}", prompt: orbit, duration: 5 }
`,
  );
  return file;
}
// hero: 250 x 2 images x 2 rows = 1,000; clip: 1,500 x 2 = 3,000; total 4,000.
// requests: 4 submits + 2 videos x 24 polls = 52 expected, 4 + 2 x 60 = 124 worst.

describe('assetline plan', () => {
  it('prints the contract JSON and exits 0 when the plan fits', async () => {
    const { code, stdout } = await assetline(['plan', pipeline(10_000), '--json', '--quota-used', '0']);
    expect(code).toBe(0);
    const plan = JSON.parse(stdout) as Record<string, unknown>;
    expect(plan).toMatchObject({
      pipeline: 'shoot',
      rows: 2,
      steps: 4,
      credits: {
        total: 4000,
        by_model: { 'kappa-2-pro': 1000, 'beta-v2.5-turbo-pro-i2v': 3000 },
        by_step: { hero: 1000, clip: 3000 },
        by_row: { A: 2000, B: 2000 },
        unpriced: 0,
        estimated: false,
      },
      requests: { submits: 4, polls_expected: 48, polls_worst: 120 },
      quota: { plan: 'pro', limit: 1000, used_24h: 0, remaining: 1000 },
      budget: { max_credits: 10_000 },
      refused: false,
      reasons: [],
    });
    expect(Array.isArray(plan.warnings)).toBe(true);
  });

  it('refuses over budget with exit 3 and sends nothing', async () => {
    service.hits = 0;
    const { code, stdout } = await assetline(['plan', pipeline(3_999)], { ASSETLINE_API_KEY: KEY });
    expect(code).toBe(3);
    expect(stdout).toContain(
      'REFUSED, nothing was sent:\n  - needs 4,000 credits, over the budget of 3,999 (budget.max_credits); run with --fit',
    );
    expect(service.hits).toBe(0);
  });

  it('run --dry-run prints exactly what plan prints, with the same flags and exit codes', async () => {
    const file = pipeline(10_000);
    const plan = await assetline(['plan', file, '--json', '--quota-used', '0']);
    const dry = await assetline(['run', file, '--dry-run', '--json', '--quota-used', '0']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(plan.stdout);
    const refused = await assetline(['run', file, '--dry-run', '--max-credits', '1', '--quota-used', '0']);
    expect(refused.code).toBe(3);
    const bad = await assetline(['run', file, '--dry-run', '--quota-used', 'some']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('run: --quota-used expects a whole number, got "some"');
  });

  it('lets --max-credits override the pipeline budget', async () => {
    expect((await assetline(['plan', pipeline(3_999), '--max-credits', '4000', '--quota-used', '0'])).code).toBe(0);
  });

  it('reads the same ledger for a key given with a trailing line break (a common CI secret mistake)', async () => {
    const stateDir = tempDir();
    await new RequestLedger(stateDir, new SecretKey(KEY).id()).append([
      { at: Date.now() - 60_000, kind: 'submit', count: 960 },
    ]);
    const { stdout } = await assetline(['plan', pipeline(10_000), '--json', '--state-dir', stateDir], {
      ASSETLINE_API_KEY: `${KEY}\n`,
    });
    expect((JSON.parse(stdout) as { quota: { used_24h: number } }).quota.used_24h).toBe(960);
  });

  it('reads the quota used from the ledger of this key, prunes expired hours, and writes the key nowhere', async () => {
    const stateDir = tempDir();
    const ledger = new RequestLedger(stateDir, new SecretKey(KEY).id());
    const twoDaysAgo = Date.now() - 48 * 3_600_000;
    await ledger.append([
      { at: twoDaysAgo, kind: 'submit', count: 500 },
      { at: Date.now() - 60_000, kind: 'submit', count: 960 },
    ]);
    const expired = `${new Date(twoDaysAgo).toISOString().slice(0, 13)}.jsonl`;
    expect(readdirSync(ledger.dir)).toContain(expired);
    const { code, stdout } = await assetline(['plan', pipeline(10_000), '--json', '--state-dir', stateDir], {
      ASSETLINE_API_KEY: KEY,
    });
    expect(code).toBe(3);
    const plan = JSON.parse(stdout) as { quota: unknown; reasons: string[] };
    expect(plan.quota).toEqual({
      plan: 'pro',
      limit: 1000,
      used_24h: 960,
      used_source: 'ledger',
      remaining: 40,
      refused_at: null,
    });
    expect(plan.reasons).toEqual([
      'needs 52 requests (4 submits + ~48 polls), 40 left of 1,000 today; run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
    expect(readdirSync(ledger.dir)).not.toContain(expired);
    const stored = readdirSync(stateDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          `${entry.parentPath}/${entry.name}\n${readFileSync(path.join(entry.parentPath, entry.name), 'utf8')}`,
      )
      .join('\n');
    expect(stored).not.toContain(KEY);
    expect(stdout).not.toContain(KEY);
  });

  it('--fit plans the whole rows that fit the quota left, and says when the ledger frees up', async () => {
    const stateDir = tempDir();
    const sentAt = Date.now() - 60_000;
    await new RequestLedger(stateDir, new SecretKey(KEY).id()).append([{ at: sentAt, kind: 'submit', count: 920 }]);
    const file = pipeline(10_000);
    const args = ['--fit', '--state-dir', stateDir];
    // 80 left: row A's worst case (2 submits + 60 polls) fits; with A's expected 26 used, B's 62 does not.
    const json = await assetline(['plan', file, '--json', ...args], { ASSETLINE_API_KEY: KEY });
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(plan).toMatchObject({
      refused: false,
      credits: { total: 2000 },
      requests: { submits: 2 },
      to_send: { rows: 1, steps: 2, credits: 2000 },
      fit: {
        rows_with_work: 2,
        rows_tonight: 1,
        rows_deferred: 1,
        deferred_by: { quota: 1, budget: 0 },
        deferred_rows: ['B'],
        windows_more: 1,
        never_fit: [],
        free_up: { requests: 920, by: new Date(sentAt + 24 * 3_600_000).toISOString() },
      },
    });
    const text = await assetline(['plan', file, ...args], { ASSETLINE_API_KEY: KEY });
    const freeBy = new Date(sentAt + 24 * 3_600_000).toISOString().slice(11, 16);
    expect(text.stdout).toContain(
      `  fit:       fits tonight: 1 of 2 rows to send; 1 deferred (1 for the quota): B; the rest needs 1 more window (24 h each); 920 requests free up by ${freeBy} UTC`,
    );
    expect(text.stdout).toContain(
      'OK with --fit: 1 whole row run now, the rest is deferred (exit 4; run again to go on)',
    );
    const dryRun = await assetline(['run', file, '--dry-run', ...args], { ASSETLINE_API_KEY: KEY });
    expect(dryRun).toEqual(text);

    // With --rows, only the rows chosen are fitted: B alone fits.
    const chosen = await assetline(['plan', file, '--json', ...args, '--rows', 'B'], { ASSETLINE_API_KEY: KEY });
    expect(JSON.parse(chosen.stdout)).toMatchObject({
      credits: { total: 2000 },
      fit: { rows_with_work: 1, rows_tonight: 1, rows_deferred: 0, deferred_rows: [] },
    });

    // The budget too: 2,500 credits cover one row of 2,000.
    const budget = await assetline(['plan', file, '--json', '--fit', '--quota-used', '0', '--max-credits', '2500']);
    expect(JSON.parse(budget.stdout)).toMatchObject({
      refused: false,
      credits: { total: 2000 },
      fit: { rows_tonight: 1, deferred_by: { quota: 0, budget: 1 }, deferred_rows: ['B'] },
    });
    expect(service.hits).toBe(0);
  });

  it('lets --quota-used override the ledger', async () => {
    const { stdout } = await assetline(['plan', pipeline(10_000), '--json', '--quota-used', '999'], {
      ASSETLINE_API_KEY: KEY,
    });
    expect(JSON.parse(stdout)).toMatchObject({
      quota: { used_24h: 999, used_source: 'flag', remaining: 1 },
      refused: true,
    });
  });

  it('prints a readable table with the totals, the quota line and the verdict', async () => {
    const { code, stdout } = await assetline(['plan', 'pipelines/product-shoot.yaml', '--quota-used', '28']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      [
        '  step    operation  model          count  credits each  credits',
        '  photo   generate   z-image-turbo     24           100    2,400',
        '  print   upscale    -                 24           100    2,400',
        '  cutout  remove-bg  -                 24          ~100   ~2,400',
        '  total                                                   ~7,200',
      ].join('\n'),
    );
    expect(stdout).toContain(
      '  quota:     pro plan, 1,000 requests per 24 h; 28 used in the last 24 h (--quota-used); 972 left',
    );
    expect(stdout).toContain("remove-bg at assetline's default of 100");
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      'OK: the plan fits the budget and the quota left today. Nothing was sent.',
    );
  });

  it('exits 2 on an invalid pipeline or a bad option, and plans nothing', async () => {
    const invalid = await assetline(['plan', 'test/fixtures/invalid/unknown-model.yaml']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('unknown generate model "z-image-turbo2"');
    expect(invalid.stdout).toBe('');
    const bad = await assetline(['plan', 'pipelines/demo.yaml', '--max-credits', 'lots']);
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--max-credits expects a whole number, got "lots"'),
    });
  });
});
