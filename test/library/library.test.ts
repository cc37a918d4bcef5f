/**
 * The library's four calls return what their commands print with `--json`, and throw the error
 * family on bad input. In-process and without a server: `run()` is covered by the e2e test that
 * runs docs/library.md's example against the built package.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CommandIo } from '../../src/cli/io.js';
import {
  AssetlineError,
  PipelineInvalidError,
  plan,
  report,
  RunUnreadableError,
  run,
  validate,
} from '../../src/index.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';
import { pipelineWith, tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

async function commandJson(argv: readonly string[], cwd = ROOT): Promise<{ code: number; json: unknown }> {
  let stdout = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: () => {},
    cwd,
    env: {},
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  const code = await main(argv, io);
  return { code, json: JSON.parse(stdout) };
}

describe('library calls return their command’s --json object', () => {
  it('validate()', async () => {
    const files = ['pipelines/demo.yaml', 'test/fixtures/invalid/defaults-unknown-key.yaml'];
    const { json } = await commandJson(['validate', ...files, '--json']);
    expect(await validate(files, { cwd: ROOT })).toEqual(json);
    expect((json as { valid: boolean }).valid).toBe(false);
  });

  it('plan(), with a budget that refuses it', async () => {
    const { code, json } = await commandJson(['plan', 'pipelines/demo.yaml', '--json', '--max-credits', '1000']);
    const planned = await plan('pipelines/demo.yaml', { cwd: ROOT, maxCredits: 1000 });
    expect(code).toBe(3);
    expect(planned).toEqual({ ...(json as object), quota: planned.quota });
    expect(planned).toMatchObject({ refused: true, credits: { total: 2610 }, budget: { max_credits: 1000 } });
  });

  it('plan() with rows and redo, as plan --rows and --redo', async () => {
    const argv = ['plan', 'pipelines/product-shoot.yaml', '--json', '--quota-used', '0', '--rows', '1-3,SH-102*'];
    const { json } = await commandJson([...argv, '--redo', '*:photo', '--out', tempDir()]);
    const planned = await plan('pipelines/product-shoot.yaml', {
      cwd: ROOT,
      quotaUsed: 0,
      rows: ['1-3', 'SH-102*'],
      redo: ['*:photo'],
      out: tempDir(),
    });
    expect(planned).toEqual(json);
    expect(planned.selection?.of_rows).toBe(24);
    expect(planned.rows).toBe(8);
    // Nothing is cached in an empty folder: nothing to pay for again.
    expect(planned.redo).toEqual({ steps: 0, rows: 0, credits: 0 });
  });

  it('plan() with a shard, as plan --shard', async () => {
    const out = tempDir();
    const argv = ['plan', 'pipelines/product-shoot.yaml', '--json', '--quota-used', '0', '--out', out];
    const { json } = await commandJson([...argv, '--shard', '2/4']);
    const planned = await plan('pipelines/product-shoot.yaml', { cwd: ROOT, quotaUsed: 0, out, shard: '2/4' });
    expect(planned).toEqual(json);
    expect(planned.shard).toMatchObject({ index: 2, count: 4, folder: 'shards/2-of-4', quota_share: 250 });
    expect(planned.budget).toEqual({ max_credits: 3000, source: 'pipeline', split: { total: 12000, count: 4 } });
  });

  it('report(), and report(dir, { html: true }) writes report.html', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(fixtureManifest()));
    const { json } = await commandJson(['report', dir, '--json']);
    const reported = await report(dir);
    expect(reported).toEqual(json);
    expect(reported).toMatchObject({ folder: dir, source: 'manifest', html: null });
    expect(reported.failures.length).toBeGreaterThan(0);
    const withHtml = await report(dir, { html: true });
    expect(withHtml.html).toBe(path.join(dir, 'report.html'));
    expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('<a href="assets.csv">assets.csv</a>');
  });
});

describe('library errors', () => {
  it('plan() and run() of an invalid pipeline throw PipelineInvalidError with every problem', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'p.yaml'),
      pipelineWith('  - id: a\n    generate: { model: no-such-model, prompt: x }\n'),
    );
    for (const call of [() => plan('p.yaml', { cwd: dir }), () => run('p.yaml', { cwd: dir, sandbox: true })]) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(PipelineInvalidError);
      expect(error).toBeInstanceOf(AssetlineError);
      const invalid = error as PipelineInvalidError;
      expect(invalid).toMatchObject({ code: 'pipeline-invalid', exitCode: 2 });
      expect(invalid.problems[0]?.location).toMatchObject({ file: 'p.yaml', line: expect.any(Number) });
      expect(invalid.message).toMatch(/^p\.yaml:\d+:\d+: .*no-such-model/);
    }
  });

  it('plan() and run() with a selector that names nothing throw UsageError, and nothing starts', async () => {
    const out = tempDir();
    await expect(plan('pipelines/product-shoot.yaml', { cwd: ROOT, rows: ['SKU-999'] })).rejects.toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: expect.stringMatching(/^--rows SKU-999: no row has the key "SKU-999"/),
    });
    await expect(
      run('pipelines/product-shoot.yaml', { cwd: ROOT, out, sandbox: true, redo: ['*:phtoo'] }),
    ).rejects.toMatchObject({
      code: 'usage',
      message: '--redo *:phtoo: no step "phtoo" in the pipeline; did you mean "photo"?',
    });
    await expect(
      run('pipelines/product-shoot.yaml', { cwd: ROOT, out, sandbox: true, shard: '4/3' }),
    ).rejects.toMatchObject({
      code: 'usage',
      message:
        'shard expects i/n, whole numbers with 1 <= i <= n <= 256, such as 2/4 (the second of 4 shards), got "4/3"',
    });
    await expect(plan('pipelines/product-shoot.yaml', { cwd: ROOT, shard: '1/0' })).rejects.toMatchObject({
      code: 'usage',
    });
    expect(readdirSync(out)).toEqual([]);
  });

  it('report() of a folder that is not a run throws RunUnreadableError', async () => {
    await expect(report(tempDir())).rejects.toBeInstanceOf(RunUnreadableError);
  });

  it('run() against the service without a key is a usage error, and nothing starts', async () => {
    const saved = { url: process.env.ASSETLINE_BASE_URL, key: process.env.ASSETLINE_API_KEY };
    delete process.env.ASSETLINE_BASE_URL;
    delete process.env.ASSETLINE_API_KEY;
    try {
      await expect(run('pipelines/demo.yaml', { cwd: ROOT, out: tempDir() })).rejects.toMatchObject({
        code: 'usage',
        exitCode: 2,
        message: expect.stringContaining('ASSETLINE_API_KEY'),
      });
    } finally {
      if (saved.url !== undefined) process.env.ASSETLINE_BASE_URL = saved.url;
      if (saved.key !== undefined) process.env.ASSETLINE_API_KEY = saved.key;
    }
  });
});
