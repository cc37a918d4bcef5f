/**
 * `assetline run --sandbox` runs the demo with real files and no key; without `--sandbox` it never
 * falls back to it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, workspace } from '../helpers/e2e-run.js';
import { tempDir } from '../helpers/temp-pipeline.js';

describe('assetline run', () => {
  it('--sandbox runs the demo and leaves real files, without any key set', async () => {
    const dir = tempDir();
    const demo = readFileSync(path.join(ROOT, 'pipelines/demo.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'pipeline.yaml'), demo);
    const child = spawn(process.execPath, [CLI, 'run', 'pipeline.yaml', '--sandbox', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'complete',
      exit_code: 0,
      credits_used: 2610,
      steps: { done: 6 },
    });
    for (const file of ['hero.png', 'hero-2.png', 'recolor.png', 'big.png', 'cutout.png', 'teaser.mp4', 'voice.mp3']) {
      expect(existsSync(path.join(dir, 'out/demo/DEMO-1', file))).toBe(true);
    }
  });
  it('never falls back to the sandbox: without a key or base URL it says what to set (exit 2)', async () => {
    const dir = workspace('nokey', 1);
    const child = spawn(process.execPath, [CLI, 'run', 'pipeline.yaml'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(2);
    expect(stderr).toContain('set ASSETLINE_BASE_URL');
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
