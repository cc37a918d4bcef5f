/**
 * report.html of a run, written after the runner from its summary and the rows of its manifest:
 * the gallery shows the rows the run started, and those a stopped run never started only when
 * they are few (else they are one count, and not read at all).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { summarize } from '../../src/manifest/manifest-summary.js';
import { NOT_STARTED_CARDS } from '../../src/report/report-html.js';
import { writeRunReport } from '../../src/report/run-report.js';
import { writeManifestFile } from '../helpers/manifest-file.js';
import { fixtureManifest, fixtureStep, png } from '../helpers/manifest-fixture.js';
import { tempDir } from '../helpers/temp-pipeline.js';

/** One row the run did, then `notStarted` rows a stop left: a step never sent and one skipped by `when:`. */
function stoppedRun(notStarted: number): Manifest {
  const done: Manifest['rows'][number] = {
    key: 'DONE',
    folder: 'DONE',
    steps: [fixtureStep({ step: 'hero', status: 'done', request_id: 'req_1', files: [png('DONE/hero.png')] })],
  };
  const never = (i: number): Manifest['rows'][number] => ({
    key: `LATER-${i}`,
    folder: `LATER-${i}`,
    steps: [
      fixtureStep({ step: 'hero', status: 'deferred', reason: 'credits', started_at: null, finished_at: null }),
      fixtureStep({ step: 'gated', status: 'skipped', reason: 'when', started_at: null, finished_at: null }),
    ],
  });
  return { ...fixtureManifest([done, ...Array.from({ length: notStarted }, (_, i) => never(i))]), status: 'stopped' };
}

async function reportOf(manifest: Manifest, rowsStarted: number): Promise<string> {
  const dir = tempDir();
  const manifestPath = await writeManifestFile(path.join(dir, 'manifest.json'), manifest);
  // The report reads the run's kept copy, which no later run rewrites.
  const keptManifestPath = await writeManifestFile(path.join(dir, 'runs', `${manifest.run_id}.json`), manifest);
  const file = await writeRunReport({ summary: summarize(manifest), manifestPath, keptManifestPath, rowsStarted });
  expect(file).toBe(path.join(dir, 'report.html'));
  return readFileSync(file as string, 'utf8');
}

describe("a run's report.html", () => {
  it('shows a few rows never started as cards', async () => {
    const html = await reportOf(stoppedRun(3), 1);
    expect(html).toContain('id="row-0"');
    expect(html).toContain('id="row-3"');
    expect(html).not.toContain('id="not-started"');
  });

  it('shows only the rows the run started when those never started are many: they are one count', async () => {
    const html = await reportOf(stoppedRun(NOT_STARTED_CARDS + 1), 1);
    expect(html).toContain('id="row-0"');
    // Their skipped steps would make cards: the gallery does not read those rows at all.
    expect(html).not.toContain('id="row-1"');
    expect(html).toContain('id="not-started"');
  });

  it('is not written for a refused run', async () => {
    const none = { summary: undefined, manifestPath: undefined, keptManifestPath: undefined, rowsStarted: undefined };
    expect(await writeRunReport(none)).toBeUndefined();
  });
});
