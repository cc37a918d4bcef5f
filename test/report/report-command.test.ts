/** `assetline report` as a script calls it: the three forms, where --html writes, and usage errors. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/io.js';
import { run } from '../../src/commands/report.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';
import { tempDir } from '../helpers/temp-pipeline.js';

function runFolder(): { cwd: string; io: CommandIo; out: () => string } {
  const cwd = tempDir();
  const dir = path.join(cwd, 'out', 'spring-shoes');
  mkdirSync(path.join(dir, 'runs'), { recursive: true });
  const text = JSON.stringify(fixtureManifest());
  writeFileSync(path.join(dir, 'manifest.json'), text);
  writeFileSync(path.join(dir, 'runs', `${fixtureManifest().run_id}.json`), text);
  let stdout = '';
  const io: CommandIo = {
    stdout: (chunk) => (stdout += chunk),
    stderr: () => undefined,
    cwd,
    env: {},
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  return { cwd, io, out: () => stdout };
}

describe('assetline report', () => {
  it('prints text by default and Markdown with --md, and exits 0 for a partial run', async () => {
    const text = runFolder();
    expect(await run(['out/spring-shoes'], text.io)).toBe(0);
    expect(text.out()).toMatch(/^spring-shoes: partial \(exit 1\): some steps failed/);
    const markdown = runFolder();
    expect(await run(['out/spring-shoes', '--md'], markdown.io)).toBe(0);
    expect(markdown.out()).toMatch(/^## assetline: spring-shoes: partial \(exit 1\)\n/);
  });

  it('writes report.html in the output folder, or runs/<run-id>.html for a kept manifest, and prints the path', async () => {
    const latest = runFolder();
    expect(await run(['out/spring-shoes', '--html'], latest.io)).toBe(0);
    expect(latest.out()).toBe(`${path.join('out', 'spring-shoes', 'report.html')}\n`);
    expect(readFileSync(path.join(latest.cwd, 'out/spring-shoes/report.html'), 'utf8')).toMatch(/^<!doctype html>/);

    const kept = runFolder();
    const id = fixtureManifest().run_id;
    expect(await run([`out/spring-shoes/runs/${id}.json`, '--html'], kept.io)).toBe(0);
    expect(kept.out()).toBe(`${path.join('out', 'spring-shoes', 'runs', `${id}.html`)}\n`);
    expect(existsSync(path.join(kept.cwd, 'out/spring-shoes/report.html'))).toBe(false);
  });

  it('refuses two forms at once, or no folder, as usage errors (exit 2)', async () => {
    const { io } = runFolder();
    await expect(run(['out/spring-shoes', '--html', '--md'], io)).rejects.toMatchObject({
      exitCode: 2,
      message: 'report: choose one of --html and --md',
    });
    await expect(run([], io)).rejects.toMatchObject({ exitCode: 2 });
  });
});
