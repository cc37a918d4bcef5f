/**
 * The checked pipeline expanded into concrete step instances: rows x steps minus `when:` skips,
 * each with its rendered parameters and the steps it depends on in its row. Stored compactly (one
 * byte of state per instance) and rendered when asked for, so 100,000 rows x 5 steps cost a few
 * megabytes; `plan` and `run` iterate it instead of holding 500,000 objects.
 */
import { safeSegment } from '../paths/safe-segment.js';
import type { CheckedPipeline } from './checked-pipeline.js';
import { type OperationCall, operationCall } from './params/operation-params.js';
import { InstanceState } from './row-pass.js';
import { priorityOrder } from './row-priority.js';
import { columnIndex, type RowTable } from './rows/row-table.js';
import { rowValues, type StepPlan } from './step-values.js';
import type { CellValue } from './template/render-template.js';

export type SkipReason = 'when' | 'upstream-skipped';

interface InstanceIdentity {
  /** `<row key>/<step id>`, unique in the pipeline. */
  readonly key: string;
  readonly rowIndex: number;
  readonly stepIndex: number;
  readonly rowKey: string;
  readonly stepId: string;
}

export type StepInstance = InstanceIdentity &
  OperationCall & {
    /** Ids of the steps of the same row whose outputs this instance uses. */
    readonly dependsOn: readonly string[];
  };

export interface SkippedInstance extends InstanceIdentity {
  readonly reason: SkipReason;
}

export interface ExpansionCounts {
  readonly rows: number;
  readonly steps: number;
  readonly instances: number;
  readonly skippedWhen: number;
  readonly skippedUpstream: number;
}

export class Expansion {
  readonly pipeline: CheckedPipeline;
  readonly rows: RowTable;
  readonly rowKeys: readonly string[];
  readonly counts: ExpansionCounts;
  readonly #plans: readonly StepPlan[];
  readonly #states: Uint8Array;
  readonly #columns: ReadonlyMap<string, number>;
  readonly #priorities: Float64Array | undefined;

  constructor(
    pipeline: CheckedPipeline,
    plans: readonly StepPlan[],
    rows: RowTable,
    rowKeys: readonly string[],
    states: Uint8Array,
    priorities?: Float64Array,
  ) {
    this.pipeline = pipeline;
    this.rows = rows;
    this.rowKeys = rowKeys;
    this.#plans = plans;
    this.#states = states;
    this.#columns = columnIndex(rows);
    this.#priorities = priorities;
    let skippedWhen = 0;
    let skippedUpstream = 0;
    for (const state of states) {
      if (state === InstanceState.skippedWhen) skippedWhen++;
      else if (state === InstanceState.skippedUpstream) skippedUpstream++;
    }
    this.counts = {
      rows: rows.cells.length,
      steps: plans.length,
      instances: states.length - skippedWhen - skippedUpstream,
      skippedWhen,
      skippedUpstream,
    };
  }

  /** The folder of a row's outputs: its key, made safe for a path. */
  rowFolder(rowIndex: number): string {
    return safeSegment(this.#rowKey(rowIndex));
  }

  /** The order rows start in: by `priority:` (higher first), else the sheet's. */
  rowOrder(): Uint32Array {
    return this.#priorities
      ? priorityOrder(this.#priorities)
      : Uint32Array.from({ length: this.counts.rows }, (_, row) => row);
  }

  /** True when `priority:` orders the rows (a run then takes them out of the sheet's order). */
  get prioritised(): boolean {
    return this.#priorities !== undefined;
  }

  /** A row's `priority:` value; 0 without one. */
  priorityOf(rowIndex: number): number {
    return this.#priorities?.[rowIndex] ?? 0;
  }

  isSkipped(rowIndex: number, stepIndex: number): boolean {
    return this.#state(rowIndex, stepIndex) !== InstanceState.run;
  }

  /** Why an instance is skipped: its own `when:`, or a skipped step it uses; undefined when it runs. */
  skipReason(rowIndex: number, stepIndex: number): SkipReason | undefined {
    const state = this.#state(rowIndex, stepIndex);
    return state === InstanceState.run ? undefined : state === InstanceState.skippedWhen ? 'when' : 'upstream-skipped';
  }

  /** One runnable instance, rendered now. */
  instance(rowIndex: number, stepIndex: number): StepInstance {
    if (this.isSkipped(rowIndex, stepIndex)) throw new RangeError(`instance ${rowIndex}/${stepIndex} is skipped`);
    const plan = this.#plans[stepIndex] as StepPlan;
    const cells = this.rows.cells[rowIndex] ?? [];
    const cell = (column: string): CellValue => {
      const at = this.#columns.get(column);
      return at === undefined ? undefined : cells[at];
    };
    const { values } = rowValues(plan, cell, this.pipeline.dir);
    const call = operationCall(plan.step.operation, values);
    const rowKey = this.#rowKey(rowIndex);
    const stepId = plan.step.id;
    // Built field by field: this runs for every instance of every plan and run, and spreads were
    // most of its cost.
    return {
      key: `${rowKey}/${stepId}`,
      rowIndex,
      stepIndex,
      rowKey,
      stepId,
      operation: call.operation,
      params: call.params,
      dependsOn: plan.step.dependsOn,
    } as StepInstance;
  }

  /** Every runnable instance (of the rows `includeRow` takes), row by row, in step order within a row. */
  *instances(includeRow?: (rowIndex: number) => boolean): Generator<StepInstance> {
    for (let row = 0; row < this.counts.rows; row++) {
      if (includeRow && !includeRow(row)) continue;
      for (let step = 0; step < this.counts.steps; step++) {
        if (!this.isSkipped(row, step)) yield this.instance(row, step);
      }
    }
  }

  /** The counts of the rows `includeRow` takes (`--rows`): rows, instances and skips as in `counts`. */
  countsOf(includeRow: (rowIndex: number) => boolean): ExpansionCounts {
    let rows = 0;
    let instances = 0;
    let skippedWhen = 0;
    let skippedUpstream = 0;
    for (let row = 0; row < this.counts.rows; row++) {
      if (!includeRow(row)) continue;
      rows++;
      for (let step = 0; step < this.counts.steps; step++) {
        const state = this.#state(row, step);
        if (state === InstanceState.skippedWhen) skippedWhen++;
        else if (state === InstanceState.skippedUpstream) skippedUpstream++;
        else instances++;
      }
    }
    return { rows, steps: this.counts.steps, instances, skippedWhen, skippedUpstream };
  }

  /** Every skipped instance with its reason. */
  *skipped(): Generator<SkippedInstance> {
    for (let row = 0; row < this.counts.rows; row++) {
      for (let step = 0; step < this.counts.steps; step++) {
        const reason = this.skipReason(row, step);
        if (reason) yield { ...this.#identity(row, step), reason };
      }
    }
  }

  #state(rowIndex: number, stepIndex: number): number {
    return this.#states[rowIndex * this.counts.steps + stepIndex] ?? InstanceState.run;
  }

  #rowKey(rowIndex: number): string {
    return this.rowKeys[rowIndex] ?? String(rowIndex + 1);
  }

  #identity(rowIndex: number, stepIndex: number): InstanceIdentity {
    const rowKey = this.#rowKey(rowIndex);
    const stepId = this.#plans[stepIndex]?.step.id ?? '';
    return { key: `${rowKey}/${stepId}`, rowIndex, stepIndex, rowKey, stepId };
  }
}
