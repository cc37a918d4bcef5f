/**
 * report.html beside the assets of a run just finished, written after the runner by whoever ran
 * it (the `run` command, or a program using the runner): from the summary the run made as it
 * wrote its manifest, with the gallery's rows read back from that manifest, in order, only as far
 * as the gallery shows. The runner itself writes no report.
 */
import path from 'node:path';
import { writeAtomically } from '../manifest/manifest-writer.js';
import { readManifestRows } from '../manifest/read-manifest.js';
import type { RunSummary } from '../manifest/manifest-summary.js';
import type { RunResult } from '../run/run-pipeline.js';
import { collapsesNotStarted, type GalleryRow, reportHtmlChunks } from './report-html.js';

/** What report.html is made from, of a run's result. */
export type FinishedRun = Pick<RunResult, 'summary' | 'manifestPath' | 'keptManifestPath' | 'rowsStarted'>;

/** Writes report.html in the run's output folder and returns its path; undefined for a refused run. */
export async function writeRunReport(run: FinishedRun): Promise<string | undefined> {
  const { summary, manifestPath, keptManifestPath, rowsStarted } = run;
  if (!summary || manifestPath === undefined || keptManifestPath === undefined || rowsStarted === undefined)
    return undefined;
  const file = path.join(path.dirname(manifestPath), 'report.html');
  // Many steps never started are one count in the report, not a card each: the rows a stopped
  // run never started are not read at all then. The kept copy, not manifest.json, which the next
  // run (free to start once this one released the folder) rewrites.
  const shown = collapsesNotStarted(summary) ? rowsStarted : Number.POSITIVE_INFINITY;
  await writeAtomically(file, reportHtmlChunks(summary, galleryRows(keptManifestPath, shown)));
  return file;
}

/**
 * Writes report.html in `outputFolder` from a summary and the manifest whose rows make the gallery
 * (`assetline merge`, with notes on where the rows came from) and returns its path.
 */
export async function writeReportHtml(
  summary: RunSummary,
  manifestFile: string,
  outputFolder: string,
  notes: readonly string[] = [],
): Promise<string> {
  const file = path.join(outputFolder, 'report.html');
  await writeAtomically(file, reportHtmlChunks(summary, galleryRows(manifestFile, Number.POSITIVE_INFINITY), notes));
  return file;
}

/** The manifest's first `count` rows as the gallery's. */
async function* galleryRows(manifestFile: string, count: number): AsyncGenerator<GalleryRow> {
  if (count === 0) return;
  let index = 0;
  for await (const row of readManifestRows(manifestFile)) {
    yield { index, key: row.key, steps: row.steps };
    if (++index === count) return;
  }
}
