/**
 * Every run of the built CLI ends with its verdict and a non-zero code when it did not do the
 * work: a key that cannot be a header value and an output folder that cannot be written are usage
 * errors before anything is sent (no lock left behind), and a run whose event loop empties
 * before it settles (a bug) ends with exit 70, never 0.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli.js');

const PIPELINE = `version: 1
name: verdict
api: { plan: pro }
rows:
  - { sku: A1 }
row_key: sku
steps:
  - id: voice
    tts: { text: "Meet \${{ row.sku }}" }
`;

function runCli(dir: string, env: Record<string, string>, args: string[] = []) {
  return spawnSync(process.execPath, [CLI, 'run', 'pipeline.yaml', '--out', 'out', '--state-dir', 'state', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('assetline run ends with its verdict', () => {
  it('refuses a key with a line break inside (exit 2), names the problem, never the key', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'pipeline.yaml'), PIPELINE);
    // Port 9 (discard): nothing must be sent anyway.
    const result = runCli(dir, { ASSETLINE_API_KEY: 'sk-abc\ndef', ASSETLINE_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('ASSETLINE_API_KEY contains a line break at position 7');
    expect(result.stderr).not.toContain('sk-abc');
    expect(existsSync(path.join(dir, 'out', 'verdict', '.lock'))).toBe(false);
  });

  it('refuses an output folder that cannot be written (exit 2), naming it', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'pipeline.yaml'), PIPELINE);
    writeFileSync(path.join(dir, 'out'), 'a file where the folder should be');
    const result = runCli(dir, { ASSETLINE_API_KEY: 'sk-test', ASSETLINE_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`the output folder ${path.join(dir, 'out', 'verdict')} cannot be written`);
    expect(result.stderr).not.toContain('internal error');
  });

  it('turns an event loop that empties before the run settles into a report of it, never exit 0', () => {
    const script = `
      import { settledOrStalled } from ${JSON.stringify(path.join(ROOT, 'dist/run/stall-guard.js'))};
      const ended = await settledOrStalled(new Promise(() => {}));
      process.stdout.write(JSON.stringify(ended));
      process.exitCode = ended.stalled ? 70 : 0;
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stdout).toBe('{"stalled":true}');
    expect(result.status).toBe(70);
  });
});
