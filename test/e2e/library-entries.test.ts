/**
 * The package's entries as published: `assetline` is the library and never loads the sandbox (nor
 * sharp and libvips); `assetline/sandbox` is the emulator.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function inNode(script: string): string {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout;
}

describe('package entries', () => {
  it('import "assetline" loads no sandbox and maps no libvips', () => {
    const out = inNode(`
      const library = await import(${JSON.stringify(path.join(ROOT, 'dist/index.js'))});
      const { readFileSync } = await import('node:fs');
      process.stdout.write(JSON.stringify({ sandbox: 'startSandbox' in library, vips: readFileSync('/proc/self/maps', 'utf8').includes('vips') }));
    `);
    expect(JSON.parse(out)).toEqual({ sandbox: false, vips: false });
  });

  it('"assetline/sandbox" starts the emulator', () => {
    const out = inNode(`
      const { startSandbox } = await import(${JSON.stringify(path.join(ROOT, 'dist/sandbox-entry.js'))});
      const sandbox = await startSandbox();
      process.stdout.write(sandbox.baseUrl);
      await sandbox.stop();
    `);
    expect(out).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
