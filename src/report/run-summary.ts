/**
 * What a person wants from a run in the morning, computed once from its manifest for every way
 * the report is shown (terminal, Markdown, HTML, GitHub annotations): what it made, what it cost
 * against the plan, and what needs attention, failures first.
 */
import type { ManifestHead } from '../run/build-manifest.js';
import type { Manifest, ManifestStep, StepCounts } from '../run/manifest-schema.js';
import { count, formatNumber } from './format.js';

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

/** What a run's status means for the person reading, in a few words. */
export function statusLine(manifest: ManifestHead): string {
  const meaning: Record<Manifest['status'], string> = {
    complete: 'every step is done',
    partial: 'some steps failed; the next run sends them again',
    stopped: 'stopped early (credits, quota, budget or key); the next run resumes',
    interrupted: 'interrupted; the next run resumes where it stopped',
    running: 'still running',
  };
  return meaning[manifest.status];
}

/**
 * The headline figures, labelled, in the order every form of the report shows them. Text only:
 * each renderer escapes it for its format.
 */
export function headlineFigures(summary: RunSummary): [label: string, value: string][] {
  const { counts, credits, requests, quota } = summary;
  const figures: [string, string][] = [
    [
      'Steps',
      `${formatNumber(counts.done)} done, ${formatNumber(counts.cached)} cached, ${formatNumber(counts.failed)} failed, ${formatNumber(counts.skipped)} skipped, ${formatNumber(counts.deferred)} deferred`,
    ],
    [
      'Credits',
      `${formatNumber(credits.used)} used of ${credits.estimated ? '~' : ''}${formatNumber(credits.planned)} planned`,
    ],
    ['Cached', `${count(counts.cached, 'step')} reused, ${formatNumber(credits.savedByCache)} credits saved`],
    ...(credits.paidTotal === undefined
      ? []
      : [['Paid', paidText(credits.paidTotal, credits.lost)] as [string, string]]),
    ['Requests', requestsText(requests)],
    [
      'Unanswered',
      summary.ambiguous.length === 0
        ? 'none: every request was answered'
        : `${count(summary.ambiguous.length, 'step')} sent again after no answer (${count(requests.ambiguous, 'attempt')}): may have been charged twice`,
    ],
    ['Quota', quotaText(quota)],
  ];
  return figures;
}

export function quotaText(quota: Manifest['totals']['quota']): string {
  if (quota.limit === null) return `${quota.plan}: limit unknown`;
  // The service's 429 is the truth, whatever the local count says.
  if (quota.refused_at)
    return `${quota.plan}: 0 of ${formatNumber(quota.limit)} requests left (the service refused for the quota at ${quota.refused_at.slice(11, 16)} UTC)`;
  const used = quota.used_24h === null ? '' : ` (${formatNumber(quota.used_24h)} used in the last 24 h)`;
  return `${quota.plan}: ${formatNumber(quota.remaining ?? 0)} of ${formatNumber(quota.limit)} requests left${used}`;
}

/** Everything paid for these steps, across runs, and what of it bought nothing kept. */
function paidText(paidTotal: number, lost: number): string {
  return `${formatNumber(paidTotal)} credits in all runs; ${lost === 0 ? 'none lost' : `${formatNumber(lost)} lost (paid for, never saved)`}`;
}

/** Why a step's credits were lost, in one line. */
export function lossText(step: ManifestStep): string {
  return (step.losses ?? []).map((loss) => `${formatNumber(loss.credits)} credits: ${loss.reason}`).join('; ');
}

/** Sent against planned, polls apart: a video that took longer than expected shows as polls. */
function requestsText(requests: Manifest['totals']['requests']): string {
  const retries = `${formatNumber(requests.retries)} ${requests.retries === 1 ? 'retry' : 'retries'}`;
  if (requests.planned_submits === undefined || requests.planned_polls === undefined)
    return `${formatNumber(requests.sent)} sent of ~${formatNumber(requests.planned)} planned: ${count(requests.submits, 'submit')}, ${count(requests.polls, 'poll')}, ${formatNumber(requests.other)} other; ${retries}`;
  return (
    `${formatNumber(requests.sent)} sent of ~${formatNumber(requests.planned)} planned: submits ${formatNumber(requests.submits)} of ${formatNumber(requests.planned_submits)}, ` +
    `polls ${formatNumber(requests.polls)} of ~${formatNumber(requests.planned_polls)}, ${formatNumber(requests.other)} other; ${retries}`
  );
}
