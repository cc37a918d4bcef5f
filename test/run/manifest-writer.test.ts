import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MANIFEST_INTERVAL_MS, ThrottledWriter, writeAtomically } from '../../src/run/manifest-writer.js';
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
    for (let t = 0; t < 10_000; t += 100) {
      writer.request();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(writes.map((at) => at - start)).toEqual([0, 3000, 6000, 9000]);
  });

  it('waits longer when a write takes long: writing stays under a twentieth of the time', async () => {
    vi.useFakeTimers();
    const writes: number[] = [];
    // Each write takes 400 ms (a big manifest): once that is known, the interval is 20 x 400 = 8 s.
    const writer = new ThrottledWriter(async () => {
      writes.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    const start = Date.now();
    for (let t = 0; t < 20_000; t += 100) {
      writer.request();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(writer.intervalMs).toBe(8000);
    expect(writes.map((at) => at - start)).toEqual([0, 3000, 11_000, 19_000]);
    expect(MANIFEST_INTERVAL_MS).toBe(3000);
  });

  it('stop() cancels a pending write and waits for the one in progress, leaving a whole file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'manifest.json');
    let n = 0;
    const writer = new ThrottledWriter(() => writeAtomically(file, `{"n":${++n}}\n`));
    writer.request();
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.request(); // pending for 3 s: stop() cancels it
    await writer.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(n).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ n: 1 });
    // No temporary file is left beside it.
    expect(readdirSync(dir)).toEqual(['manifest.json']);
  });
});
