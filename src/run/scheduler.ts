/**
 * Runs every row's steps as a DAG: an instance starts when the instances it uses are done, in its
 * own row, whatever other rows are doing (no stage barriers). Requests go through one p-queue
 * with the run's concurrency (and a queue per operation where the pipeline limits one, e.g.
 * video); the queue slot is held for one request at a time, never across a wait. Rows are taken a
 * window at a time, so 500,000 instances never become 500,000 pending closures.
 *
 * Stops: the first stop of any kind (402, 429 for the quota, 401, a disk that cannot be written,
 * an interrupt) closes the gate at once: no instance is started, and no request that waits for a
 * slot is sent (a first try, a retry or a video poll: it fails with RunStopping and its instance is
 * deferred). Only requests already on the wire finish. No instance is started that would take the
 * credits past the budget, counting every credit paid, not only those of finished steps.
 *
 * Once stopped, no further row is taken: the rows never started are not walked (100,000s of
 * deferred outcomes nobody waits for); `notStarted()` makes them on the fly for the manifest.
 */
import PQueue from 'p-queue';
import type { Operation } from '../catalog/operations.js';
import type { CheckedStep } from '../pipeline/checked-pipeline.js';
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { InstanceTask, Slot } from './instance-runner.js';
import type { RowAdmission, RowUse } from './row-admission.js';
import {
  type DeferReason,
  type InstanceOutcome,
  type InstanceStatus,
  newOutcome,
  type SkipReason,
} from './run-outcome.js';
import { RunStopping, type StopReason } from './run-stop.js';
import type { StopSignal } from './step-failure.js';

export type { StopReason } from './run-stop.js';

/** A row the run never started, with the outcomes the scheduler would have given its steps. */
export interface OutcomeRow {
  /** The row's index in the rows file. */
  readonly index: number;
  readonly key: string;
  readonly folder: string;
  readonly outcomes: readonly InstanceOutcome[];
}

export interface RowEntry {
  readonly key: string;
  readonly folder: string;
  /** Instance keys, in step order. */
  readonly instances: readonly string[];
}

export interface ScheduleResult {
  readonly outcomes: ReadonlyMap<string, InstanceOutcome>;
  readonly rows: readonly RowEntry[];
  readonly stoppedBy: StopReason | undefined;
}

export type RunOne = (task: InstanceTask) => Promise<StopSignal>;

export interface SchedulerOptions {
  readonly expansion: Expansion;
  /**
   * The rows to take (indices in the rows file), in the order to take them; rows not listed are
   * never scheduled (the manifest shows them as earlier runs left them).
   * @default every row, in file order
   */
  readonly rowOrder?: ArrayLike<number> | undefined;
  /** Overrides the pipeline's total concurrency (--concurrency). */
  readonly concurrency?: number | undefined;
  readonly maxCredits: number | undefined;
  readonly plannedCredits: (instance: StepInstance) => number;
  readonly modelOf: (instance: StepInstance) => string | undefined;
  readonly runOne: RunOne;
  readonly onSettled?: (outcome: InstanceOutcome) => void;
  /**
   * Told when every step of a row has settled; `release` lets the row's outcomes go (their
   * manifest line is kept elsewhere), `keep` holds them until the end of the run.
   */
  readonly onRowSettled?: (index: number, row: RowEntry, outcomes: readonly InstanceOutcome[]) => 'release' | 'keep';
  /** Told once, when the run first stops starting work. */
  readonly onStop?: (reason: StopReason) => void;
  /** `--fit`: a row starts only when it fits what is left; the rest are deferred (quota, budget). */
  readonly admission?: RowAdmission | undefined;
}

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #requests: PQueue;
  readonly #byOperation = new Map<Operation, PQueue>();
  readonly #outcomes = new Map<string, InstanceOutcome>();
  readonly #rows: RowEntry[] = [];
  readonly #order: ArrayLike<number>;
  /** Rows taken so far (positions 0 to this in the row order): the rest never start once the run stops. */
  #taken = 0;
  #stoppedBy: StopReason | undefined;
  #creditsUsed = 0;
  #creditsReserved = 0;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#order = options.rowOrder ?? everyRow(options.expansion.counts.rows);
    const { perOperation } = options.expansion.pipeline.concurrency;
    const total = options.concurrency ?? options.expansion.pipeline.concurrency.total;
    this.#requests = new PQueue({ concurrency: total });
    for (const [operation, limit] of Object.entries(perOperation) as [Operation, number][]) {
      this.#byOperation.set(operation, new PQueue({ concurrency: limit }));
    }
  }

  get stoppedBy(): StopReason | undefined {
    return this.#stoppedBy;
  }

  /** Stop starting work and sending requests (the first reason given is kept). */
  stop(reason: StopReason): void {
    if (this.#stoppedBy) return;
    this.#stoppedBy = reason;
    this.#options.onStop?.(reason);
    // A row waiting for room would otherwise wait for rows that may never finish.
    this.#options.admission?.wake();
  }

  /** Instances of the rows held in memory (not released), for progress and the manifest. */
  get outcomes(): ReadonlyMap<string, InstanceOutcome> {
    return this.#outcomes;
  }

  get rows(): readonly RowEntry[] {
    return this.#rows;
  }

  get creditsUsed(): number {
    return this.#creditsUsed;
  }

  async run(): Promise<ScheduleResult> {
    const window = Math.max(8, this.#requests.concurrency * 4);
    const rows = new PQueue({ concurrency: window });
    const order = this.#order;
    const { admission } = this.#options;
    for (let at = 0; at < order.length && !this.#stoppedBy; at++) {
      await rows.onSizeLessThan(window);
      if (this.#stoppedBy) break;
      const row = order[at] as number;
      const refusal = admission ? await admission.admit(row, () => this.#stoppedBy !== undefined) : undefined;
      if (refusal === 'stopping') break;
      this.#taken = at + 1;
      if (refusal) {
        this.#deferRow(row, refusal);
        continue;
      }
      void rows.add(() => this.#runRow(row));
    }
    await rows.onIdle();
    return { outcomes: this.#outcomes, rows: this.#rows, stoppedBy: this.#stoppedBy };
  }

  /**
   * The rows the run never started, after it stopped: each step as the scheduler would have left
   * it (skipped by `when:` or a skipped step it uses, deferred for the stop or for a deferred step
   * it uses). Made when asked for, never held; empty while the run has not stopped.
   */
  *notStarted(): Generator<OutcomeRow> {
    const stoppedBy = this.#stoppedBy;
    if (!stoppedBy) return;
    const order = this.#order;
    for (let at = this.#taken; at < order.length; at++) yield this.#unstarted(order[at] as number, stoppedBy);
  }

  /**
   * A row that does not start, each step as the scheduler would have left it: skipped by `when:`
   * or a skipped step it uses, deferred (for `reason`, or for a deferred step it uses).
   */
  #unstarted(row: number, reason: DeferReason): OutcomeRow {
    const { expansion } = this.#options;
    const steps = expansion.pipeline.steps;
    const index = new Map(steps.map((step, i) => [step.id, i]));
    const rowKey = expansion.rowKeys[row] ?? String(row + 1);
    const folder = expansion.rowFolder(row);
    const outcomes: InstanceOutcome[] = [];
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i] as CheckedStep;
      const skipped = expansion.skipReason(row, i);
      const instance = skipped ? undefined : expansion.instance(row, i);
      const outcome = this.#newOutcome(`${rowKey}/${step.id}`, rowKey, folder, step, instance);
      const upstream = step.dependsOn.map((id) => outcomes[index.get(id) ?? -1]?.status);
      if (skipped) settle(outcome, 'skipped', skipped);
      else if (upstream.includes('skipped')) settle(outcome, 'skipped', 'upstream-skipped');
      else if (upstream.includes('deferred')) settle(outcome, 'deferred', 'upstream-deferred');
      else settle(outcome, 'deferred', reason);
      outcomes.push(outcome);
    }
    return { index: row, key: rowKey, folder, outcomes };
  }

  /** `--fit` left a row for a later run: it settles at once, every step deferred (or skipped). */
  #deferRow(row: number, reason: DeferReason): void {
    const { key, folder, outcomes } = this.#unstarted(row, reason);
    const entry = { key, folder, instances: outcomes.map((outcome) => outcome.key) };
    for (const outcome of outcomes) this.#options.onSettled?.(outcome);
    this.#rows[row] = entry;
    for (const outcome of outcomes) this.#outcomes.set(outcome.key, outcome);
    if (this.#options.onRowSettled?.(row, entry, outcomes) === 'release') {
      for (const outcome of outcomes) this.#outcomes.delete(outcome.key);
      delete this.#rows[row];
    }
  }

  #newOutcome(
    key: string,
    rowKey: string,
    folder: string,
    step: CheckedStep,
    instance: StepInstance | undefined,
  ): InstanceOutcome {
    return newOutcome({
      key,
      rowKey,
      rowFolder: folder,
      stepId: step.id,
      operation: step.operation,
      model: instance ? this.#options.modelOf(instance) : undefined,
      creditsPlanned: instance ? this.#options.plannedCredits(instance) : 0,
    });
  }

  async #runRow(row: number): Promise<void> {
    const { expansion } = this.#options;
    const steps = expansion.pipeline.steps;
    const rowKey = expansion.rowKeys[row] ?? String(row + 1);
    const folder = expansion.rowFolder(row);
    const byStep = new Map<string, InstanceOutcome>();
    const settled = new Map<string, Promise<void>>();
    const keys: string[] = [];
    for (const [index, step] of steps.entries()) {
      const key = `${rowKey}/${step.id}`;
      keys.push(key);
      const skipped = expansion.skipReason(row, index);
      const instance = skipped ? undefined : expansion.instance(row, index);
      const outcome = this.#newOutcome(key, rowKey, folder, step, instance);
      byStep.set(step.id, outcome);
      this.#outcomes.set(key, outcome);
      const deps = step.dependsOn.map((id) => settled.get(id)).filter((p): p is Promise<void> => p !== undefined);
      settled.set(
        step.id,
        Promise.all(deps).then(async () => {
          if (skipped || !instance) {
            outcome.status = 'skipped';
            outcome.reason = skipped ?? 'when';
          } else {
            await this.#dispatch(instance, step, folder, outcome, byStep);
          }
          this.#options.onSettled?.(outcome);
        }),
      );
    }
    const entry = { key: rowKey, folder, instances: keys };
    this.#rows[row] = entry;
    await Promise.all(settled.values());
    const outcomes = [...byStep.values()];
    this.#options.admission?.finish(row, rowUse(outcomes));
    if (this.#options.onRowSettled?.(row, entry, outcomes) === 'release') {
      for (const key of keys) this.#outcomes.delete(key);
      // A hole: rows() skips it (the row's line is kept by whoever released it).
      delete this.#rows[row];
    }
  }

  async #dispatch(
    instance: StepInstance,
    step: CheckedStep,
    folder: string,
    outcome: InstanceOutcome,
    byStep: Map<string, InstanceOutcome>,
  ): Promise<void> {
    const upstream = step.dependsOn.map((id) => byStep.get(id)?.status);
    if (upstream.includes('failed')) return settle(outcome, 'skipped', 'upstream-failed');
    if (upstream.includes('skipped')) return settle(outcome, 'skipped', 'upstream-skipped');
    if (upstream.includes('deferred')) return settle(outcome, 'deferred', 'upstream-deferred');
    if (this.#stoppedBy) return settle(outcome, 'deferred', this.#stoppedBy);
    const { maxCredits } = this.#options;
    if (maxCredits !== undefined && this.#creditsUsed + this.#creditsReserved + outcome.creditsPlanned > maxCredits)
      return settle(outcome, 'deferred', 'budget');
    this.#creditsReserved += outcome.creditsPlanned;
    try {
      const stop = await this.#options.runOne({
        instance,
        step,
        rowFolder: folder,
        outcome,
        upstream: (id) => byStep.get(id),
        slot: this.#slot(instance.operation),
      });
      if (stop) this.stop(stop);
    } finally {
      this.#creditsReserved -= outcome.creditsPlanned;
      // Paid is paid: a result that could not be saved still counts against the budget.
      this.#creditsUsed += outcome.creditsUsed;
    }
  }

  /** A request waits here for its slot; once the run stops, it is not sent. */
  #slot(operation: Operation): Slot {
    const limit = this.#byOperation.get(operation);
    const requests = this.#requests;
    const gated = <T>(request: () => Promise<T>): Promise<T> =>
      requests.add(() => {
        if (this.#stoppedBy) throw new RunStopping(this.#stoppedBy);
        return request();
      });
    if (!limit) return gated;
    return <T>(request: () => Promise<T>) => limit.add(() => gated(request));
  }
}

/** What a finished row took from the quota (every request, retries included) and the budget. */
function rowUse(outcomes: readonly InstanceOutcome[]): RowUse {
  let requests = 0;
  let credits = 0;
  for (const outcome of outcomes) {
    requests += outcome.attempts + outcome.polls;
    credits += outcome.creditsUsed;
  }
  return { requests, credits };
}

/** 0, 1, ... rows - 1: the default order. */
function everyRow(rows: number): Uint32Array {
  const order = new Uint32Array(rows);
  for (let row = 0; row < rows; row++) order[row] = row;
  return order;
}

function settle(outcome: InstanceOutcome, status: InstanceStatus, reason: SkipReason | DeferReason): void {
  outcome.status = status;
  outcome.reason = reason;
}
