/**
 * report.html's links to the run's files, for every form of `assetline report --html`: each href
 * and src of the page, resolved from the folder the page is written in, is a file that exists. An
 * older run's page (runs/<run-id>.html) is one folder below the assets and assets.csv.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { reportRun } from '../../src/library/report.js';
import { folderHref } from '../../src/report/report-html.js';
import type { JournalRecord } from '../../src/run/journal-records.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';
import { tempDir } from '../helpers/temp-pipeline.js';

/** Every file the manifest names, and assets.csv, made in `dir`. */
function writeFiles(dir: string, manifest: Manifest): void {
  const paths = manifest.rows.flatMap((row) =>
    row.steps.flatMap((step) => [...step.files, ...step.extra_files].map((file) => file.path)),
  );
  for (const file of [...paths, 'assets.csv']) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), 'x');
  }
}

/** The page's links to files: every href and src but anchors. */
function fileLinks(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"#][^"]*)"/g)].map((match) => match[1] ?? '');
}

function missing(htmlFile: string): string[] {
  const html = readFileSync(htmlFile, 'utf8');
  const links = fileLinks(html);
  expect(links.length).toBeGreaterThan(1);
  expect(html).toMatch(/<img src="/);
  return links.filter((href) => !existsSync(path.join(path.dirname(htmlFile), decodeURIComponent(href))));
}

function keptRun(): { cwd: string; dir: string; id: string } {
  const cwd = tempDir();
  const dir = path.join(cwd, 'out', 'spring-shoes');
  const manifest = fixtureManifest();
  mkdirSync(path.join(dir, 'runs'), { recursive: true });
  writeFiles(dir, manifest);
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'runs', `${manifest.run_id}.json`), JSON.stringify(manifest));
  return { cwd, dir, id: manifest.run_id };
}

describe("report.html's links to the run's files", () => {
  it('resolve from the output folder for a run folder', async () => {
    const { cwd } = keptRun();
    const { htmlFile } = await reportRun('out/spring-shoes', { cwd, html: true });
    expect(path.basename(htmlFile ?? '')).toBe('report.html');
    expect(missing(htmlFile ?? '')).toEqual([]);
  });

  it('resolve from runs/ for an older run kept as runs/<run-id>.json', async () => {
    const { cwd, dir, id } = keptRun();
    const { htmlFile } = await reportRun(`out/spring-shoes/runs/${id}.json`, { cwd, html: true });
    expect(htmlFile).toBe(path.join(dir, 'runs', `${id}.html`));
    const html = readFileSync(htmlFile ?? '', 'utf8');
    expect(html).toContain('href="../assets.csv"');
    expect(html).toMatch(/<img src="\.\.\/[A-Z]/);
    expect(missing(htmlFile ?? '')).toEqual([]);
  });

  it('resolve from the output folder for a run known only from its journal', async () => {
    const dir = path.join(tempDir(), 'shoes');
    mkdirSync(path.join(dir, 'A'), { recursive: true });
    writeFileSync(path.join(dir, 'A', 'hero.png'), 'x');
    writeFileSync(path.join(dir, 'assets.csv'), 'x');
    const t = Date.parse('2026-11-22T02:17:00.000Z');
    const file = {
      path: 'A/hero.png',
      index: 0,
      sha256: 'b'.repeat(64),
      bytes: 1,
      media_type: 'image/png',
      url: 'https://cdn/a',
    };
    const records: JournalRecord[] = [
      { type: 'run', t, run_id: '2026-11-22T02-17-00-000Z-ab12' },
      {
        type: 'intent',
        t: t + 1,
        key: 'A/hero',
        fingerprint: 'fa',
        generation: 0,
        idempotency_key: 'k-a',
        operation: 'generate',
        model: 'z-image-turbo',
        credits_planned: 100,
      },
      { type: 'answered', t: t + 2, key: 'A/hero', request_id: 'req_a', urls: ['https://cdn/a'], credits_used: 100 },
      { type: 'downloaded', t: t + 3, key: 'A/hero', fingerprint: 'fa', files: [file] },
    ];
    writeFileSync(path.join(dir, 'journal.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const { loaded, htmlFile } = await reportRun(dir, { cwd: tempDir(), html: true });
    expect(loaded.source).toBe('journal');
    expect(htmlFile).toBe(path.join(dir, 'report.html'));
    expect(missing(htmlFile ?? '')).toEqual([]);
  });
});

describe('folderHref', () => {
  it('is empty for the same folder, ../ from a subfolder, and URL-encoded', () => {
    expect(folderHref('/o/p', '/o/p')).toBe('');
    expect(folderHref('/o/p/runs', '/o/p')).toBe('../');
    expect(folderHref('/o', '/o/a b')).toBe('a%20b/');
  });
});
