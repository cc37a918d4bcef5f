/**
 * What a person wants from a run in the morning, computed once from its manifest for every way
 * the report is shown (terminal, Markdown, HTML, GitHub annotations): what it made, what it cost
 * against the plan, and what needs attention, failures first. Data only: the report's views word
 * it (report/summary-text.ts). Here beside the manifest because the runner makes it row by row as
 * it writes the manifest, and `assetline report` from a manifest read back.
 */
import type { Manifest, ManifestHead, ManifestStep, StepCounts } from './manifest-schema.js';

export interface CostLine {
  readonly name: string;
  readonly planned: number;
  readonly used: number;
}

export interface StepRef {
  readonly row: string;
  /** The row's place in the manifest: the HTML report's anchor. */
  readonly rowIndex: number;
  readonly step: ManifestStep;
}

/** Deferred steps never started: many of them (a big run stopped early) are shown as one count. */
export interface NotStarted {
  readonly steps: number;
  /** Rows with at least one such step. */
  readonly rows: number;
  /** Their reasons (`interrupted`, `upstream-deferred`, ...), with how many steps each. */
  readonly reasons: ReadonlyMap<string, number>;
}

export interface RunSummary<M extends ManifestHead = ManifestHead> {
  readonly manifest: M;
  readonly counts: StepCounts;
  readonly instances: number;
  /** Rows in the manifest. */
  readonly rows: number;
  readonly credits: {
    readonly planned: number;
    readonly used: number;
    readonly estimated: boolean;
    readonly savedByCache: number;
    /** Every credit charged for these steps across all runs (undefined in manifests before 0.2). */
    readonly paidTotal: number | undefined;
    /** Of those, paid for results never saved. */
    readonly lost: number;
    readonly byModel: readonly CostLine[];
    readonly byStep: readonly CostLine[];
    /** Most credits used first. */
    readonly byRow: readonly CostLine[];
  };
  readonly requests: Manifest['totals']['requests'];
  readonly quota: Manifest['totals']['quota'];
  readonly failures: readonly StepRef[];
  /** Sent without an answer at least once: may have been charged twice. */
  readonly ambiguous: readonly StepRef[];
  /** Results of abandoned video jobs that were paid for anyway. */
  readonly extraFiles: readonly StepRef[];
  /** Steps with credits paid for results never saved (the manifest's `losses` say why). */
  readonly lost: readonly StepRef[];
  /** Reasons for deferred and skipped steps, with how many steps each. */
  readonly reasons: ReadonlyMap<string, number>;
  readonly notStarted: NotStarted;
}

/** Deferred without a single attempt: the step was never sent (in this run). */
export function neverStarted(step: ManifestStep): boolean {
  return step.status === 'deferred' && step.attempts === 0 && step.request_id === null;
}

/**
 * Summarises a manifest row by row: what needs attention is kept (failures, possible double
 * charges, losses), the rest only counted, so a run of 100,000 rows summarises in little memory.
 */
export class SummaryBuilder {
  readonly #failures: StepRef[] = [];
  readonly #ambiguous: StepRef[] = [];
  readonly #extraFiles: StepRef[] = [];
  readonly #lost: StepRef[] = [];
  readonly #reasons = new Map<string, number>();
  readonly #notStartedReasons = new Map<string, number>();
  #notStartedSteps = 0;
  #notStartedRows = 0;
  #instances = 0;
  #rows = 0;

  add(rowIndex: number, row: string, steps: readonly ManifestStep[]): void {
    this.#rows++;
    let notStarted = 0;
    for (const step of steps) {
      this.#instances++;
      const ref = { row, rowIndex, step };
      if (step.status === 'failed') this.#failures.push(ref);
      if (step.ambiguous_attempts > 0) this.#ambiguous.push(ref);
      if (step.extra_files.length > 0) this.#extraFiles.push(ref);
      if ((step.losses?.length ?? 0) > 0) this.#lost.push(ref);
      if (step.status === 'deferred' || step.status === 'skipped') {
        const reason = `${step.status}: ${step.reason ?? 'unknown'}`;
        this.#reasons.set(reason, (this.#reasons.get(reason) ?? 0) + 1);
      }
      if (neverStarted(step)) {
        notStarted++;
        const reason = step.reason ?? 'unknown';
        this.#notStartedReasons.set(reason, (this.#notStartedReasons.get(reason) ?? 0) + 1);
      }
    }
    this.#notStartedSteps += notStarted;
    if (notStarted > 0) this.#notStartedRows++;
  }

  /** The summary, once every row was added; `manifest` holds the totals. */
  finish<M extends ManifestHead>(manifest: M): RunSummary<M> {
    const { totals } = manifest;
    const lines = (table: Record<string, { planned: number; used: number }>) =>
      Object.entries(table).map(([name, { planned, used }]) => ({ name, planned, used }));
    return {
      manifest,
      counts: totals.steps,
      instances: this.#instances,
      rows: this.#rows,
      credits: {
        planned: totals.credits.planned,
        used: totals.credits.used,
        estimated: totals.credits.estimated,
        savedByCache: totals.credits.saved_by_cache,
        paidTotal: totals.credits.paid_total,
        lost: totals.credits.lost ?? 0,
        byModel: lines(totals.credits.by_model),
        byStep: lines(totals.credits.by_step),
        byRow: lines(totals.credits.by_row).sort((a, b) => b.used - a.used || b.planned - a.planned),
      },
      requests: totals.requests,
      quota: totals.quota,
      failures: this.#failures,
      ambiguous: this.#ambiguous,
      extraFiles: this.#extraFiles,
      lost: this.#lost,
      reasons: this.#reasons,
      notStarted: { steps: this.#notStartedSteps, rows: this.#notStartedRows, reasons: this.#notStartedReasons },
    };
  }
}

export function summarize(manifest: Manifest): RunSummary<Manifest> {
  const builder = new SummaryBuilder();
  manifest.rows.forEach((row, rowIndex) => builder.add(rowIndex, row.key, row.steps));
  return builder.finish(manifest);
}
