/**
 * `assetline run` killed and resumed: SIGKILL at several moments never pays twice for one
 * idempotency key; SIGTERM flushes the manifest, exits 143 and resumes.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalOfLatestRun, sandboxStats, startRun, until, useSandboxProcess, workspace } from '../helpers/e2e-run.js';

useSandboxProcess();

describe('assetline run', () => {
  it('resumed after SIGKILL at several moments, pays once for every idempotency key', async () => {
    const dir = workspace('killed', 8);
    // Killed right after these journal records of the run: its first intent, a video job
    // submitted (before its first poll), three answers (before their downloads), four downloads.
    const moments: [string, number][] = [
      ['intent', 1],
      ['submitted', 1],
      ['answered', 3],
      ['downloaded', 4],
    ];
    for (const [type, count] of moments) {
      const { child, done } = startRun(dir);
      await until(() => (journalOfLatestRun(dir, 'killed').get(type) ?? 0) >= count, `${count} ${type}`);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
    }
    const last = await startRun(dir, ['--json']).done;
    expect(last.code, last.stderr).toBe(0);
    const summary = JSON.parse(last.stdout) as { status: string; steps: Record<string, number> };
    expect(summary.status).toBe('complete');
    expect((summary.steps.done ?? 0) + (summary.steps.cached ?? 0)).toBe(32);
    for (let i = 0; i < 8; i++) {
      for (const file of ['hero.png', 'big.png', 'clip.mp4', 'voice.mp3'])
        expect(existsSync(path.join(dir, 'out/killed', `S${i}`, file))).toBe(true);
    }
    const stats = await sandboxStats();
    const keys = Object.entries(stats.charges.by_idempotency_key).filter(([key]) => key.startsWith('al-'));
    expect(keys.length).toBeGreaterThanOrEqual(32);
    expect(keys.filter(([, charges]) => charges > 1)).toEqual([]);
  });
  it('on SIGTERM stops, flushes the manifest, exits 143, and resumes', async () => {
    // How fast it exits is measured by bench/interrupt.mjs, not judged here by the clock.
    const dir = workspace('terminated', 12);
    const { child, done } = startRun(dir);
    await until(() => (journalOfLatestRun(dir, 'terminated').get('answered') ?? 0) >= 2, 'two answers');
    child.kill('SIGTERM');
    const finished = await done;
    expect(finished.code).toBe(143);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'out/terminated/manifest.json'), 'utf8')) as {
      status: string;
      stopped_by: string;
    };
    expect(manifest).toMatchObject({ status: 'interrupted', stopped_by: 'interrupted' });
    const resumed = await startRun(dir).done;
    expect(resumed.code, resumed.stderr).toBe(0);
  });
});
