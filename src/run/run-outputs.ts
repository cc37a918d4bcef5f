/**
 * What a run leaves: manifest.json (with its kept copy runs/<run-id>.json), and the summary the
 * terminal, GitHub and report.html show (the `run` command writes report.html from it). Rows are
 * tallied and turned into their manifest lines as they settle, then let go (row-spill.ts), so
 * neither the run nor its end holds 300,000 outcomes: the end adds the rows still in memory and
 * those never started, and writes the manifest as it is made. A run that takes only some rows
 * (--rows) lists the others too, as earlier runs left them, each in its place (manifest-order.ts).
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
import { ManifestOrder } from './manifest-order.js';
import type { OutputLayout } from './output-layout.js';
import type { InstanceOutcome } from './run-outcome.js';
import { RowSpill } from './row-spill.js';
import type { OutcomeRow, RowEntry } from './scheduler.js';

export interface RowsOfRun {
  /** Which rows the run takes, and where every row goes in the manifest. */
  readonly order: ManifestOrder;
  /** A row the run does not take, as the manifest lists it (earlier-rows.ts). */
  readonly otherRow: (index: number) => OutcomeRow;
}

/** What the end of a run wrote the manifest with. */
export interface ManifestWritten {
  readonly summary: RunSummary;
  /**
   * Rows before the first row the run never started: the manifest's first rows. A stopped run's
   * manifest lists after them the rows it never started (the report's gallery leaves those out
   * when they are many).
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
  readonly #order: ManifestOrder;
  readonly #otherRow: ((index: number) => OutcomeRow) | undefined;

  /** Without `rows`, the run takes every row of `rowCount`, in file order. */
  constructor(layout: OutputLayout, runId: string, rowCount: number, rows?: RowsOfRun) {
    this.#layout = layout;
    // The spill holds the rows taken, by their place in the order.
    this.#spill = new RowSpill(path.join(layout.dir, `.rows-${runId}.jsonl`));
    this.#order = rows?.order ?? new ManifestOrder(rowCount);
    this.#otherRow = rows?.otherRow;
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
    const at = this.#order.slotOf(index);
    if (outcomes.some(hasAbandonedJob)) {
      this.#spill.add(at, { held: true });
      return 'keep';
    }
    const entry = rowEntry(this.#order.indexOf(at), row.key, row.folder, outcomes, true, books);
    this.#tally(entry);
    this.#spill.add(at, { line: rowLine(entry, this.#blank) });
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
    const order = this.#order;
    const held = new Map<number, ManifestRow>();
    for (const [at, row] of this.#heldRows(run)) {
      held.set(at, row);
      this.#tally(row);
      // Kept for an abandoned job (already in the spill as a placeholder), or still unsettled
      // when the run could not go on (a bug): either way its place in the order is here.
      this.#spill.add(at, { held: true });
    }
    const indexOf = (row: OutcomeRow) => order.indexOf(order.slotOf(row.index));
    for (const row of notStartedRows(run, indexOf)) this.#tally(row);
    for (const row of this.#otherRows(run.books)) this.#tally(row);
    return {
      totals: this.#totals,
      write: async (final) => {
        const head = manifestHead(final, this.#totals);
        const summary = this.#summary.finish(head);
        const heldLine = (at: number) => rowLine(held.get(at) as ManifestRow, this.#blank);
        const blank = this.#blank;
        const notStartedLines = function* () {
          for (const row of notStartedRows(final, indexOf)) yield rowLine(row, blank);
        };
        const rows = order.everyRow
          ? manifestTextOf(head, await this.#spilled(heldLine), notStartedLines())
          : manifestTextOf(head, { lines: this.#inOrder(heldLine, notStartedLines(), final.books) }, []);
        await writeAtomically(this.#layout.manifest, rows, [this.#layout.runManifest(final.runId)]);
        const started = this.#spill.written;
        return { summary, rowsStarted: started < order.taken ? order.indexOf(started) : order.rows };
      },
    };
  }

  /** The manifest while the run works: the rows settled so far, in order, under their totals. */
  async writeRunning(run: RunRecord, signal: AbortSignal): Promise<void> {
    const heldLine = (at: number) => {
      const row = run.rows[this.#order.rowAt(at)];
      return row ? rowLine(rowOf(run, this.#order.indexOf(at), row), this.#blank) : '{}';
    };
    await writeAtomically(
      this.#layout.manifest,
      manifestTextOf(manifestHead(run, this.#totals), await this.#spilled(heldLine), []),
      [],
      signal,
    );
  }

  /**
   * Every row's line in manifest order: the spilled rows, then those never started, in the order
   * the run takes them, with the rows it does not take in their places.
   */
  async *#inOrder(
    heldLine: (at: number) => string,
    notStarted: Iterator<string>,
    books: RunRecord['books'],
  ): AsyncGenerator<string> {
    const spilled = this.#spill.lines(heldLine)[Symbol.asyncIterator]();
    const written = this.#spill.written;
    let index = 0;
    for (const place of this.#order.walk()) {
      if ('other' in place) yield rowLine(this.#otherEntry(place.other, index, books), this.#blank);
      else if (place.taken < written) yield (await spilled.next()).value as string;
      else yield notStarted.next().value as string;
      index++;
    }
  }

  /** The rows the run does not take, as the manifest lists them, with their places. */
  *#otherRows(books: RunRecord['books']): Generator<ManifestRow> {
    if (this.#order.everyRow) return;
    let index = 0;
    for (const place of this.#order.walk()) {
      if ('other' in place) yield this.#otherEntry(place.other, index, books);
      index++;
    }
  }

  #otherEntry(row: number, index: number, books: RunRecord['books']): ManifestRow {
    const other = this.#otherRow?.(row);
    if (!other) throw new Error(`row ${row} is not taken and has no earlier state`);
    return rowEntry(index, other.key, other.folder, other.outcomes, false, books);
  }

  /** The rows kept in memory to the end, by their place in the order. */
  *#heldRows(run: RunRecord): Generator<[number, ManifestRow]> {
    for (const [index, row] of run.rows.entries()) {
      if (!row) continue;
      const at = this.#order.slotOf(index);
      yield [at, rowOf(run, this.#order.indexOf(at), row)];
    }
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
