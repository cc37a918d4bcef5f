/**
 * Which run a report shows: a finished manifest as written; a manifest left "running" by a dead
 * run, brought up to date from the journal; the journal alone when no manifest was written; and
 * clear errors for what is not a run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { loadRun } from '../../src/report/load-run.js';
import type { JournalRecord } from '../../src/run/journal-records.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';
import { assertPublishedManifest } from '../helpers/manifest-validator.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const RUN_ID = '2026-11-22T02-17-00-000Z-ab12';
const T0 = Date.parse('2026-11-22T02:17:00.000Z');

const work = { operation: 'generate', model: 'z-image-turbo', credits_planned: 100 } as const;
const file = (p: string) => ({
  path: p,
  index: 0,
  sha256: 'b'.repeat(64),
  bytes: 900,
  media_type: 'image/png',
  url: `https://cdn/${p}`,
  width: 256,
  height: 256,
});

function runFolder(records: readonly JournalRecord[], extra = ''): string {
  const dir = path.join(tempDir(), 'shoes');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'journal.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n${extra}`);
  return dir;
}

const JOURNAL: JournalRecord[] = [
  // An earlier run's result, kept for the cache: not part of the latest run.
  { type: 'downloaded', t: 0, key: 'OLD/hero', fingerprint: 'f0', files: [file('OLD/hero.png')] },
  { type: 'run', t: T0, run_id: RUN_ID },
  { type: 'intent', t: T0 + 10, key: 'A/hero', fingerprint: 'fa', generation: 0, idempotency_key: 'k-a', ...work },
  { type: 'ambiguous', t: T0 + 20, key: 'A/hero', attempt: 1, reason: 'reset' },
  { type: 'answered', t: T0 + 900, key: 'A/hero', request_id: 'req_a', urls: ['https://cdn/a'], credits_used: 100 },
  { type: 'downloaded', t: T0 + 1000, key: 'A/hero', fingerprint: 'fa', files: [file('A/hero.png')] },
  { type: 'intent', t: T0 + 30, key: 'B/hero', fingerprint: 'fb', generation: 0, idempotency_key: 'k-b', ...work },
  {
    type: 'failed',
    t: T0 + 800,
    key: 'B/hero',
    kind: 'quota',
    status: 429,
    code: 'rate_limited',
    message: 'daily quota',
    request_id: undefined,
  },
  { type: 'intent', t: T0 + 40, key: 'C/hero', fingerprint: 'fc', generation: 0, idempotency_key: 'k-c', ...work },
  { type: 'downloaded', t: T0 + 50, key: 'D/hero', fingerprint: 'fd', files: [file('D/hero.png')] },
];

describe('loadRun', () => {
  it('rebuilds a report from the journal alone when the run died before writing its manifest', async () => {
    // The last line was cut short by the kill.
    const loaded = await loadRun(runFolder(JOURNAL, '{"type":"intent","t":1,"key":"E/he'));
    expect(loaded.source).toBe('journal');
    expect(loaded.notes[0]).toContain('stopped before writing its manifest');
    const { manifest } = loaded;
    assertPublishedManifest(manifest, 'the rebuilt manifest');
    expect(manifest).toMatchObject({
      pipeline: 'shoes',
      run_id: RUN_ID,
      status: 'interrupted',
      started_at: '2026-11-22T02:17:00.000Z',
    });
    const steps = Object.fromEntries(manifest.rows.map((row) => [row.key, row.steps[0]]));
    expect(Object.keys(steps)).toEqual(['A', 'B', 'C', 'D']);
    expect(steps.A).toMatchObject({
      status: 'done',
      model: 'z-image-turbo',
      request_id: 'req_a',
      ambiguous_attempts: 1,
      credits: { planned: 100, used: 100 },
    });
    expect(steps.A?.files.map((f) => f.path)).toEqual(['A/hero.png']);
    expect(steps.B).toMatchObject({
      status: 'deferred',
      reason: 'quota',
      error: { status: 429, code: 'rate_limited' },
    });
    expect(steps.C).toMatchObject({ status: 'deferred', reason: 'interrupted', credits: { planned: 100, used: 0 } });
    expect(steps.D).toMatchObject({ status: 'cached', credits: { planned: 0, used: 0 } });
    expect(manifest.totals.steps).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 2, cached: 1 });
    expect(manifest.totals.credits).toMatchObject({
      planned: 300,
      used: 100,
      by_model: { 'z-image-turbo': { planned: 300, used: 100 } },
    });
    expect(manifest.totals.requests).toMatchObject({ submits: 1, ambiguous: 1, sent: 2 });
  });

  it('brings a manifest left "running" by a dead run up to date from its journal', async () => {
    const dir = runFolder([
      { type: 'run', t: T0, run_id: RUN_ID },
      {
        type: 'intent',
        t: T0 + 10,
        key: 'TRAIL-3/hero',
        fingerprint: 'ft',
        generation: 0,
        idempotency_key: 'k-t',
        ...work,
      },
      {
        type: 'answered',
        t: T0 + 500,
        key: 'TRAIL-3/hero',
        request_id: 'req_t',
        urls: ['https://cdn/t'],
        credits_used: 120,
      },
      { type: 'downloaded', t: T0 + 600, key: 'TRAIL-3/hero', fingerprint: 'ft', files: [file('TRAIL-3/hero.png')] },
    ]);
    writeFileSync(
      path.join(dir, 'manifest.json'),
      JSON.stringify({ ...fixtureManifest(), status: 'running', exit_code: null }),
    );
    const loaded = await loadRun(dir);
    expect(loaded.source).toBe('manifest and journal');
    expect(loaded.notes[0]).toContain('stopped without finishing its manifest');
    assertPublishedManifest(loaded.manifest, 'the updated manifest');
    expect(loaded.manifest.status).toBe('interrupted');
    const trail = loaded.manifest.rows.find((row) => row.key === 'TRAIL-3');
    expect(trail?.steps.map((s) => [s.step, s.status])).toEqual([
      ['hero', 'done'],
      ['big', 'skipped'],
    ]);
    expect(loaded.manifest.totals.steps).toEqual({ done: 3, failed: 1, skipped: 1, deferred: 0, cached: 1 });
    expect(loaded.manifest.totals.credits.used).toBe(200 + 120);
    expect(loaded.manifest.totals.credits.by_row['TRAIL-3']).toEqual({ planned: 100, used: 120 });
  });

  it('says a run is still going when the lock holder is alive, and leaves its status "running"', async () => {
    const dir = runFolder([{ type: 'run', t: T0, run_id: RUN_ID }]);
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...fixtureManifest(), status: 'running' }));
    writeFileSync(
      path.join(dir, '.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: '2026-11-22T02:17:00Z' }),
    );
    const loaded = await loadRun(dir);
    expect(loaded.manifest.status).toBe('running');
    expect(loaded.notes[0]).toBe(
      `A run is still in progress (process ${process.pid}, started 2026-11-22T02:17:00Z); this is what it has done so far.`,
    );
  });

  it("shows the newer run from its journal when it died before replacing the last run's manifest", async () => {
    const dir = runFolder([
      { type: 'run', t: T0 + 3_600_000, run_id: 'next-run' },
      {
        type: 'intent',
        t: T0 + 3_600_010,
        key: 'A/hero',
        fingerprint: 'fa',
        generation: 0,
        idempotency_key: 'k',
        ...work,
      },
    ]);
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(fixtureManifest()));
    const loaded = await loadRun(dir);
    expect(loaded.source).toBe('journal');
    expect(loaded.manifest).toMatchObject({ run_id: 'next-run', status: 'interrupted' });
    expect(loaded.notes.at(-1)).toBe(`manifest.json there is of the run before, ${RUN_ID} (partial).`);

    // The same manifest with the journal of its own run: shown as written.
    const same = runFolder([{ type: 'run', t: T0, run_id: RUN_ID }]);
    writeFileSync(path.join(same, 'manifest.json'), JSON.stringify(fixtureManifest()));
    expect(await loadRun(same)).toMatchObject({ source: 'manifest', notes: [], manifest: fixtureManifest() });
  });

  it('shows a finished manifest as written, also from runs/<run-id>.json', async () => {
    const dir = runFolder([]);
    mkdirSync(path.join(dir, 'runs'));
    writeFileSync(path.join(dir, 'runs', `${RUN_ID}.json`), JSON.stringify(fixtureManifest()));
    const loaded = await loadRun(path.join(dir, 'runs', `${RUN_ID}.json`));
    expect(loaded).toMatchObject({ dir, source: 'manifest', notes: [] });
    expect(loaded.manifest).toEqual(fixtureManifest());
  });

  it('refuses what is not a run with exit 2, naming the file and the field', async () => {
    const empty = tempDir();
    await expect(loadRun(empty, 'out/x')).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: 'out/x: no manifest.json and no journal.jsonl: expected an output folder such as out/<pipeline>/',
    });
    await expect(loadRun(path.join(empty, 'nope'), 'nope')).rejects.toMatchObject({
      message: 'nope: no such file or folder',
    });

    const broken = fixtureManifest() as unknown as { rows: { steps: { status: string }[] }[] };
    (broken.rows[0]?.steps[0] as { status: string }).status = 'finished';
    writeFileSync(path.join(empty, 'manifest.json'), JSON.stringify(broken));
    await expect(loadRun(empty)).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: expect.stringMatching(
        /manifest\.json: not an assetline manifest .*\n {2}rows\[0\]\.steps\[0\]\.status: /,
      ),
    });
    writeFileSync(path.join(empty, 'manifest.json'), '{"schema_version": 1,');
    await expect(loadRun(empty)).rejects.toMatchObject({
      message: expect.stringContaining('manifest.json: not valid JSON'),
    });
  });
});
