/**
 * The package as published: `npm pack`, installed into an empty folder from the tarball, first
 * without its optional dependencies (the sandbox says which package it misses), then with them
 * (`npx assetline run pipelines/demo.yaml --sandbox`, and docs/library.md's example script).
 * Installs use the npm cache that `npm ci` filled (`--prefer-offline`).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const exec = promisify(execFile);

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function spawnIn(
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  try {
    const { stdout, stderr } = await exec(command, [...args], {
      cwd,
      env: { ...process.env, ASSETLINE_API_KEY: '', ASSETLINE_BASE_URL: '', ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The first ```js block of docs/library.md: the example the page promises works. */
function libraryExample(): string {
  const page = readFileSync(path.join(ROOT, 'docs/library.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/library.md has no ```js example');
  return block;
}

let tarball: string;
let packed: readonly string[];
let app: string;

beforeAll(async () => {
  const dest = tempDir();
  const { stdout } = await exec(NPM, ['pack', '--json', '--pack-destination', dest], { cwd: ROOT });
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = path.join(dest, info.filename);
  packed = info.files.map((file) => file.path);
  app = tempDir();
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  mkdirSync(path.join(app, 'pipelines'));
  copyFileSync(path.join(ROOT, 'pipelines/demo.yaml'), path.join(app, 'pipelines/demo.yaml'));
}, 60_000);

const install = (...extra: string[]) =>
  spawnIn(app, NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', ...extra, tarball]);

describe('the packed tarball', () => {
  it('holds the built code, the schemas and the docs, and no source maps, sources or tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/cli.js', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(packed).toEqual(expect.arrayContaining(['dist/sandbox-entry.js', 'schemas/manifest.schema.json']));
    expect(packed.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(packed.filter((file) => /^(src|test|bench)\//.test(file))).toEqual([]);
  });
});

describe('installed from the tarball', () => {
  it('without optional dependencies: validate works; --sandbox names the missing package (exit 2)', async () => {
    expect((await install('--omit=optional')).code).toBe(0);
    expect(existsSync(path.join(app, 'node_modules/sharp'))).toBe(false);

    // The installed bin itself (npx is used below, once: it adds a second or so to each call).
    const bin = path.join(app, 'node_modules/.bin/assetline');
    const validate = await spawnIn(app, bin, ['validate', 'pipelines/demo.yaml']);
    expect(validate).toMatchObject({ code: 0, stdout: expect.stringContaining('valid: 1 row x 6 steps') });
    const sandbox = await spawnIn(app, bin, ['run', 'pipelines/demo.yaml', '--sandbox']);
    expect(sandbox.code).toBe(2);
    expect(sandbox.stderr).toContain('the sandbox needs the package "sharp"');
    expect(sandbox.stderr).toContain('npm install sharp');
    expect(existsSync(path.join(app, 'out'))).toBe(false);
  }, 90_000);

  it('with them: npx assetline run --sandbox, and the library example plans, checks and runs', async () => {
    expect((await install()).code).toBe(0);
    writeFileSync(path.join(app, 'nightly.mjs'), libraryExample());

    const refused = await spawnIn(app, process.execPath, ['nightly.mjs'], { MAX_CREDITS: '1000' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('not running demo: 2610 credits planned, limit 1000');
    expect(existsSync(path.join(app, 'out'))).toBe(false);

    const [cli, example] = await Promise.all([
      spawnIn(app, 'npx', ['assetline', 'run', 'pipelines/demo.yaml', '--sandbox', '--out', 'out-cli', '--json']),
      spawnIn(app, process.execPath, ['nightly.mjs']),
    ]);
    expect(JSON.parse(cli.stdout)).toMatchObject({
      status: 'complete',
      exit_code: 0,
      credits_used: 2610,
      steps: { done: 6 },
    });
    expect(cli.code).toBe(0);
    // Real files, with no key set (spawnIn clears ASSETLINE_API_KEY and ASSETLINE_BASE_URL).
    for (const file of ['hero.png', 'hero-2.png', 'recolor.png', 'big.png', 'cutout.png', 'teaser.mp4', 'voice.mp3'])
      expect(existsSync(path.join(app, 'out-cli/demo/DEMO-1', file))).toBe(true);
    expect(example.stdout).toContain('complete: 2610 credits, 7 requests');
    expect(example.code).toBe(0);
    for (const out of ['out-cli', 'out']) {
      const manifest = JSON.parse(readFileSync(path.join(app, out, 'demo/manifest.json'), 'utf8')) as {
        totals: { steps: { done: number } };
      };
      expect(manifest.totals.steps.done).toBe(6);
      expect(existsSync(path.join(app, out, 'demo/report.html'))).toBe(true);
    }
  }, 120_000);
});
