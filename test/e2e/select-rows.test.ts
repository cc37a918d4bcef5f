/**
 * `--rows` and `--redo` that name nothing, spawned as a user runs them: exit 2 with the closest
 * name on stderr, nothing sent to the service, no output folder written; `--rows` and `--redo`
 * are read by plan, run --dry-run and run alike.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, useCountingService } from '../helpers/counting-service.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'sk-test-SELECT-e2e-0123456789';

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
rows: [{ sku: SKU-10 }, { sku: SKU-20 }, { sku: B7 }]
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

describe('--rows and --redo on the command line', () => {
  it('refuses a row key that names no row: exit 2, the closest key, nothing sent, no output folder', async () => {
    const dir = workspace();
    service.hits = 0;
    const run = await assetline(dir, ['run', 'shoot.yaml', '--rows', 'sku-20']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('assetline: --rows sku-20: no row has the key "sku-20"; did you mean "SKU-20"?\n');
    expect(run.stdout).toBe('');
    for (const args of [
      ['plan', 'shoot.yaml', '--rows', 'B7,SKU-3*'],
      ['run', 'shoot.yaml', '--dry-run', '--rows', '2-4'],
      ['run', 'shoot.yaml', '--redo', 'B7:hreo'],
    ]) {
      const { code, stderr } = await assetline(dir, args);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^assetline: --(rows|redo) /);
    }
    const { stderr } = await assetline(dir, ['run', 'shoot.yaml', '--redo', 'B7:hreo']);
    expect(stderr).toContain('no step "hreo" in the pipeline; did you mean "hero"?');
    expect(service.hits).toBe(0);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('plans only the chosen rows, repeated or comma-separated, by plan and run --dry-run alike', async () => {
    const dir = workspace();
    const plan = await assetline(dir, [
      'plan',
      'shoot.yaml',
      '--json',
      '--quota-used',
      '0',
      '--rows',
      'SKU-*',
      '--rows',
      '3',
    ]);
    const dry = await assetline(dir, [
      'run',
      'shoot.yaml',
      '--dry-run',
      '--json',
      '--quota-used',
      '0',
      '--rows',
      '1,2,B7',
    ]);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ rows: 3, selection: { rows: 3, of_rows: 3 }, steps: 6 });
    const one = await assetline(dir, ['plan', 'shoot.yaml', '--json', '--quota-used', '0', '--rows', 'B7']);
    expect(JSON.parse(one.stdout)).toMatchObject({
      rows: 1,
      selection: { rows: 1, of_rows: 3 },
      credits: { total: 200, by_row: { B7: 200 } },
      requests: { submits: 2 },
      redo: { steps: 0, rows: 0, credits: 0 },
    });
    expect(dry.stdout).toBe(plan.stdout);
    expect(service.hits).toBe(0);
  });
});
