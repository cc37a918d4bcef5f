/**
 * What a run leaves at the end: manifest.json (with its kept copy runs/<run-id>.json) and
 * report.html, both written as they are made from the scheduler's outcomes, and the summary the
 * terminal and GitHub show, made on the same pass as the totals. Nothing here holds the whole
 * manifest: a run of 100,000 rows stopped early writes 200 MB of manifest in bounded memory.
 */
import { NOT_STARTED_CARDS, reportHtmlChunks } from '../report/report-html.js';
import { type RunSummary, SummaryBuilder } from '../report/run-summary.js';
import { manifestHead, manifestRows, type RowTotals, type RunRecord, tallyRows } from './build-manifest.js';
import { manifestJson } from './manifest-json.js';
import { writeAtomically } from './manifest-writer.js';
import type { OutputLayout } from './output-layout.js';

/** The totals of every row, and the summary of what needs attention, in one pass over the rows. */
export function tallyRun(run: RunRecord): { totals: RowTotals; summary: SummaryBuilder } {
  const summary = new SummaryBuilder();
  const totals = tallyRows(manifestRows(run), (row) => summary.add(row.index, row.key, row.steps));
  return { totals, summary };
}

/** The final manifest and report, from `run` (its verdict set) and its tally. */
export async function writeRunOutputs(
  run: RunRecord,
  tally: { totals: RowTotals; summary: SummaryBuilder },
  layout: OutputLayout,
): Promise<RunSummary> {
  const head = manifestHead(run, tally.totals);
  const summary = tally.summary.finish(head);
  // The report's gallery leaves out the rows never started when they are many (one count instead).
  const startedOnly = summary.notStarted.steps > NOT_STARTED_CARDS;
  await Promise.all([
    writeAtomically(layout.manifest, manifestJson(head, manifestRows(run)), [layout.runManifest(run.runId)]),
    writeAtomically(layout.report, reportHtmlChunks(summary, manifestRows(run, { startedOnly }))),
  ]);
  return summary;
}

/** A manifest while the run works: rewritten from what has settled so far. */
export async function writeRunningManifest(run: RunRecord, layout: OutputLayout, signal: AbortSignal): Promise<void> {
  const totals = tallyRows(manifestRows(run));
  signal.throwIfAborted();
  await writeAtomically(layout.manifest, manifestJson(manifestHead(run, totals), manifestRows(run)), [], signal);
}
