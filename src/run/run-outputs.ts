/**
 * What a run leaves: manifest.json (with its kept copy runs/<run-id>.json), and the summary the
 * terminal, GitHub and report.html show (the `run` command writes report.html from it). Rows are
 * tallied and turned into their manifest lines as they settle, then let go (row-spill.ts), so
 * neither the run nor its end holds 300,000 outcomes: the end adds the rows still in memory and
 * those never started, and writes the manifest as it is made.
 */
import path from 'node:path';
import { manifestTextOf, rowLine } from '../manifest/manifest-json.js';
import { type RunSummary, SummaryBuilder } from '../manifest/manifest-summary.js';
import { writeAtomically } from '../manifest/manifest-writer.js';
import {
  addRow,
  type ManifestRow,
  manifestHead,
  notStartedRows,
  newRowTotals,
  rowEntry,
  type RowTotals,
  type RunRecord,
} from './build-manifest.js';
import type { OutputLayout } from './output-layout.js';
import type { InstanceOutcome } from './run-outcome.js';
import { RowSpill } from './row-spill.js';
import type { RowEntry } from './scheduler.js';

/** What the end of a run wrote the manifest with. */
export interface ManifestWritten {
  readonly summary: RunSummary;
  /**
   * Rows the run started: the manifest's first rows. A stopped run's manifest lists after them
   * the rows it never started (the report's gallery leaves those out when they are many).
   */
  readonly rowsStarted: number;
}

export class RunOutputs {
  readonly #layout: OutputLayout;
  readonly #spill: RowSpill;
  readonly #totals: RowTotals = newRowTotals();
  readonly #summary = new SummaryBuilder();
  /** Text of steps with nothing of their own, shared by every line that has one. */
  readonly #blank = new Map<string, string>();

  constructor(layout: OutputLayout, runId: string) {
    this.#layout = layout;
    this.#spill = new RowSpill(path.join(layout.dir, `.rows-${runId}.jsonl`));
  }

  /**
   * A row whose steps have all settled: tallied and written to the spill as its manifest line
   * (`release`), or, when it has a video job given up after a timeout that the end of the run
   * asks once more, kept in memory until then (`keep`).
   */
  rowSettled(
    index: number,
    row: RowEntry,
    outcomes: readonly InstanceOutcome[],
    books: RunRecord['books'],
  ): 'release' | 'keep' {
    if (outcomes.some(hasAbandonedJob)) {
      this.#spill.add(index, { held: true });
      return 'keep';
    }
    const entry = rowEntry(index, row.key, row.folder, outcomes, true, books);
    this.#tally(entry);
    this.#spill.add(index, { line: rowLine(entry, this.#blank) });
    return 'release';
  }

  /**
   * The end: the rows still in memory and those never started are tallied too. Returns the exact
   * step counts, for the verdict, and the writer of the manifest once the verdict is known.
   */
  finish(run: RunRecord): {
    readonly totals: RowTotals;
    readonly write: (final: RunRecord) => Promise<ManifestWritten>;
  } {
    const held = new Map<number, ManifestRow>();
    for (const row of heldRows(run)) {
      held.set(row.index, row);
      this.#tally(row);
      // Kept for an abandoned job (already in the spill as a placeholder), or still unsettled
      // when the run could not go on (a bug): either way its place in the order is here.
      this.#spill.add(row.index, { held: true });
    }
    for (const row of notStartedRows(run, this.#spill.written)) this.#tally(row);
    return {
      totals: this.#totals,
      write: async (final) => {
        const head = manifestHead(final, this.#totals);
        const summary = this.#summary.finish(head);
        const heldLine = (index: number) => rowLine(held.get(index) as ManifestRow, this.#blank);
        const blank = this.#blank;
        const notStartedLines = function* () {
          for (const row of notStartedRows(final, 0)) yield rowLine(row, blank);
        };
        await writeAtomically(
          this.#layout.manifest,
          manifestTextOf(head, await this.#spilled(heldLine), notStartedLines()),
          [this.#layout.runManifest(final.runId)],
        );
        return { summary, rowsStarted: this.#spill.written };
      },
    };
  }

  /** The manifest while the run works: the rows settled so far, in order, under their totals. */
  async writeRunning(run: RunRecord, signal: AbortSignal): Promise<void> {
    const heldLine = (index: number) => {
      const row = run.rows[index];
      return row ? rowLine(rowOf(run, index, row), this.#blank) : '{}';
    };
    await writeAtomically(
      this.#layout.manifest,
      manifestTextOf(manifestHead(run, this.#totals), await this.#spilled(heldLine), []),
      [],
      signal,
    );
  }

  /** The spilled rows for the manifest: copied as bytes, or as lines when some are held in memory. */
  async #spilled(heldLine: (index: number) => string) {
    const bytes = await this.#spill.rowBytes();
    return bytes ? { bytes, count: this.#spill.written } : { lines: this.#spill.lines(heldLine) };
  }

  /** Removes the spill file. */
  async close(): Promise<void> {
    await this.#spill.close();
  }

  #tally(row: ManifestRow): void {
    addRow(this.#totals, row);
    this.#summary.add(row.index, row.key, row.steps);
  }
}

function hasAbandonedJob(outcome: InstanceOutcome): boolean {
  return outcome.operation === 'video' && outcome.requestIds.length > (outcome.status === 'done' ? 1 : 0);
}

function rowOf(run: RunRecord, index: number, row: RowEntry): ManifestRow {
  const outcomes = row.instances.flatMap((key) => {
    const outcome = run.outcomes.get(key);
    return outcome ? [outcome] : [];
  });
  return rowEntry(index, row.key, row.folder, outcomes, true, run.books);
}

/** The rows the run kept in memory to the end. */
function* heldRows(run: RunRecord): Generator<ManifestRow> {
  for (const [index, row] of run.rows.entries()) if (row) yield rowOf(run, index, row);
}
