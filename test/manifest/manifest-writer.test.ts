import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MANIFEST_INTERVAL_MS, ThrottledWriter, writeAtomically } from '../../src/manifest/manifest-writer.js';
import { tempDir } from '../helpers/temp-pipeline.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the manifest while running', () => {
  it('is written at once, then at most once per interval however often it is asked for', async () => {
    vi.useFakeTimers();
    const writes: number[] = [];
    const writer = new ThrottledWriter(async () => void writes.push(Date.now()));
    const start = Date.now();
    for (let t = 0; t < 35_000; t += 100) {
      writer.request();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(writes.map((at) => at - start)).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it('waits longer when a write takes long: writing stays under a twentieth of the time', async () => {
    vi.useFakeTimers();
    const writes: number[] = [];
    // Each write takes 1.5 s (a very big manifest): once that is known, the interval is 20 x 1.5 = 30 s.
    const writer = new ThrottledWriter(async () => {
      writes.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 1500));
    });
    const start = Date.now();
    for (let t = 0; t < 75_000; t += 100) {
      writer.request();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(MANIFEST_INTERVAL_MS).toBe(10_000);
    expect(writer.intervalMs).toBe(30_000);
    expect(writes.map((at) => at - start)).toEqual([0, 10_000, 40_000, 70_000]);
  });

  it('stop() cancels a pending write and waits for the one in progress, leaving a whole file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'manifest.json');
    let n = 0;
    const writer = new ThrottledWriter(() => writeAtomically(file, `{"n":${++n}}\n`));
    writer.request();
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.request(); // pending for 10 s: stop() cancels it
    await writer.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(n).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ n: 1 });
    // No temporary file is left beside it.
    expect(readdirSync(dir)).toEqual(['manifest.json']);
  });
});

describe('writeAtomically with copies', () => {
  it('keeps each run manifest as it was when the next run rewrites manifest.json', async () => {
    const dir = tempDir();
    const manifest = path.join(dir, 'manifest.json');
    await writeAtomically(manifest, 'run 1\n', [path.join(dir, 'runs', '1.json')]);
    await writeAtomically(manifest, 'run 2, running\n');
    await writeAtomically(manifest, 'run 2\n', [path.join(dir, 'runs', '2.json')]);
    expect(readFileSync(manifest, 'utf8')).toBe('run 2\n');
    expect(readFileSync(path.join(dir, 'runs', '1.json'), 'utf8')).toBe('run 1\n');
    expect(readFileSync(path.join(dir, 'runs', '2.json'), 'utf8')).toBe('run 2\n');
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'runs']);
    expect(readdirSync(path.join(dir, 'runs')).sort()).toEqual(['1.json', '2.json']);
  });
});
