/**
 * Without `--sandbox`, `assetline run` never falls back to it. (`run --sandbox` of the demo, with
 * its real files and no key set, is run from the installed package in package.test.ts.)
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, workspace } from '../helpers/e2e-run.js';

describe('assetline run', () => {
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
