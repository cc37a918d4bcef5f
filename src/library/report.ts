/**
 * Load a run's report from its output folder (or one of its runs/<run-id>.json), and write
 * report.html when asked: what the `report` command and the library's `report()` share.
 * Reads the run's files and writes only report.html.
 */
import path from 'node:path';
import { loadRun, type LoadedRun } from '../report/load-run.js';
import { folderHref, reportHtml } from '../report/report-html.js';
import { type ReportJson, reportJson } from '../report/report-json.js';
import { type RunSummary, summarize } from '../manifest/manifest-summary.js';
import type { Manifest } from '../manifest/manifest-schema.js';
import { writeAtomically } from '../manifest/manifest-writer.js';

export interface ReportedRun {
  readonly loaded: LoadedRun;
  readonly summary: RunSummary<Manifest>;
  /** The report.html written, when asked for. */
  readonly htmlFile: string | undefined;
}

export async function reportRun(
  target: string,
  options: { readonly cwd: string; readonly html: boolean },
): Promise<ReportedRun> {
  const resolved = path.resolve(options.cwd, target);
  const loaded = await loadRun(resolved, target);
  const summary = summarize(loaded.manifest);
  if (!options.html) return { loaded, summary, htmlFile: undefined };
  // An older run's kept manifest gets its report beside it, so the latest report.html stays.
  const fromRuns = resolved.endsWith('.json') && path.basename(path.dirname(resolved)) === 'runs';
  const htmlFile = fromRuns
    ? path.join(loaded.dir, 'runs', `${loaded.manifest.run_id}.html`)
    : path.join(loaded.dir, 'report.html');
  // Asset paths and assets.csv are relative to the output folder, which is above runs/.
  await writeAtomically(htmlFile, reportHtml(summary, loaded.notes, folderHref(path.dirname(htmlFile), loaded.dir)));
  return { loaded, summary, htmlFile };
}

export interface ReportOptions {
  /**
   * The folder a relative `dir` is resolved against.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * Also write report.html in the output folder (runs/<run-id>.html for an older run's kept
   * manifest); its path is the result's `html`.
   * @default false
   */
  readonly html?: boolean;
}

/**
 * The report of a finished, stopped or crashed run, as `assetline report --json` prints it: what it
 * made, what it cost against its plan, and what needs attention. Reads only (but report.html).
 *
 * @param dir The pipeline's output folder (`out/<pipeline>/`) or one of its `runs/<run-id>.json`.
 * @throws {RunUnreadableError} not a run folder, or a manifest that cannot be read.
 */
export async function report(dir: string, options: ReportOptions = {}): Promise<ReportJson> {
  const { loaded, summary, htmlFile } = await reportRun(dir, {
    cwd: options.cwd ?? process.cwd(),
    html: options.html ?? false,
  });
  return reportJson(loaded, summary, htmlFile ?? null);
}
