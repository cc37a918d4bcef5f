/**
 * One pass over the rows: each row's key (present, unique, a safe folder), which steps run
 * (`when:`, and skips that follow from a skipped upstream step), and the checks that depend on
 * rendered values: limits on rendered text, numbers from spreadsheet cells, per-row output indices.
 */
import { safeSegment } from '../paths/safe-segment.js';
import type { PipelineSettings } from './checked-pipeline.js';
import type { OutputIndexCheck } from './compile-steps.js';
import { didYouMean } from './did-you-mean.js';
import { formatLocation } from './problem.js';
import type { ProblemCollector } from './problem-collector.js';
import { columnIndex, type RowTable } from './rows/row-table.js';
import { controlCharacterFindings } from './rules/control-characters.js';
import type { ImageFileInspector } from './rules/image-file-inspector.js';
import type { Finding, RuleContext } from './rules/step-rule.js';
import { asList } from './static-pass.js';
import { rowValues, type StepPlan } from './step-values.js';
import { type CellValue, cellText, isTruthy, renderTemplate } from './template/render-template.js';
import type { YamlLocator } from './yaml/yaml-locator.js';

/** What happens to one step of one row. */
export const InstanceState = { run: 0, skippedWhen: 1, skippedUpstream: 2 } as const;

export interface RowPassInput {
  readonly plans: readonly StepPlan[];
  readonly table: RowTable;
  readonly settings: PipelineSettings;
  readonly outputIndexChecks: readonly OutputIndexCheck[];
  readonly files: ImageFileInspector;
  readonly locator: YamlLocator;
  readonly collector: ProblemCollector;
}

export interface RowPassResult {
  readonly rowKeys: readonly string[];
  /** `states[row * steps + step]`, one of InstanceState. */
  readonly states: Uint8Array;
}

export function runRowPass(input: RowPassInput): RowPassResult {
  const { plans, table, settings, collector } = input;
  const rowCount = table.cells.length;
  const stepCount = plans.length;
  const states = new Uint8Array(rowCount * stepCount);
  const rowKeys = rowKeysOf(input);
  const columns = columnIndex(table);
  const position = new Map(plans.map((plan, index) => [plan.step.id, index]));
  const dependencies = plans.map((plan) => plan.step.dependsOn.flatMap((id) => position.get(id) ?? []));
  const indexChecks = plans.map((plan) => input.outputIndexChecks.filter((check) => check.consumer === plan.step.id));
  const contexts: RuleContext[] = plans.map((plan) => ({
    operation: plan.step.operation,
    limits: settings.limits,
    files: input.files,
  }));
  const numImages = new Array<number | undefined>(stepCount);

  for (let row = 0; row < rowCount; row++) {
    const cells = table.cells[row] ?? [];
    const cell = (column: string): CellValue => {
      const at = columns.get(column);
      return at === undefined ? undefined : cells[at];
    };
    const rowLabel = settings.rowKey === undefined ? `row ${row + 1}` : `row "${rowKeys[row]}"`;
    for (let s = 0; s < stepCount; s++) {
      const plan = plans[s] as StepPlan;
      const state = stepState(plan, cell, dependencies[s] ?? [], states, row * stepCount);
      states[row * stepCount + s] = state;
      numImages[s] = undefined;
      if (state !== InstanceState.run) continue;

      const report = (code: string, finding: Finding) => {
        const where = `step "${plan.step.id}", ${plan.step.operation}.${finding.field}`;
        collector.addRowProblem(`${code}|${plan.step.id}|${finding.field}`, where, {
          severity: finding.severity ?? 'error',
          code,
          message: `${rowLabel}, ${where}: ${finding.message}`,
          location: table.locate(row),
        });
      };
      if (plan.templated.length > 0) {
        const { values, errors } = rowValues(plan, cell, settings.dir);
        for (const error of errors) report('field-type', error);
        for (const finding of controlCharacterFindings(values, plan.templated)) report('control-character', finding);
        for (const rule of plan.rowRules) {
          for (const finding of asList(rule.check(values, contexts[s] as RuleContext))) report(rule.code, finding);
        }
        numImages[s] = typeof values.num_images === 'number' ? values.num_images : undefined;
      }

      for (const check of indexChecks[s] ?? []) {
        const target = position.get(check.target);
        const images = target === undefined ? undefined : numImages[target];
        if (images === undefined || check.index < images) continue;
        report('template-output-index', {
          field: check.field,
          message: `steps.${check.target}.outputs[${check.index}] is past the ${images} image${images === 1 ? '' : 's'} step "${check.target}" makes for this row`,
        });
      }
    }
  }
  return { rowKeys, states };
}

function stepState(
  plan: StepPlan,
  cell: (column: string) => CellValue,
  dependencies: readonly number[],
  states: Uint8Array,
  rowOffset: number,
): number {
  const when = plan.step.when?.value;
  if (when?.kind === 'static' && when.value === false) return InstanceState.skippedWhen;
  if (when?.kind === 'template' && !isTruthy(renderTemplate(when.template, cell))) return InstanceState.skippedWhen;
  for (const dependency of dependencies) {
    if (states[rowOffset + dependency] !== InstanceState.run) return InstanceState.skippedUpstream;
  }
  return InstanceState.run;
}

/**
 * Row keys: the `row_key` column's value, or the row number. Keys name folders, so they must be
 * present and stay distinct once made safe for a path (and case-insensitively, for macOS and Windows).
 */
function rowKeysOf({ table, settings, locator, collector }: RowPassInput): string[] {
  const rowCount = table.cells.length;
  const column = settings.rowKey;
  const byRow = Array.from({ length: rowCount }, (_, row) => String(row + 1));
  if (column === undefined) return byRow;
  const at = table.columns.indexOf(column);
  if (at === -1) {
    const known = table.columns.length > 0 ? `; the rows have ${table.columns.join(', ')}` : '';
    collector.error(
      'row-key-column',
      `row_key: no column "${column}"${known}${didYouMean(column, table.columns)}`,
      locator.locate(['row_key']),
    );
    return byRow;
  }
  const folders = new Map<string, number>();
  const keys = new Array<string>(rowCount);
  for (let row = 0; row < rowCount; row++) {
    const key = cellText(table.cells[row]?.[at]).trim();
    keys[row] = key === '' ? String(row + 1) : key;
    const report = (message: string) =>
      collector.addRowProblem(`row-key|${message.split(':')[0]}`, `row_key "${column}"`, {
        severity: 'error',
        code: 'row-key',
        message,
        location: table.locate(row),
      });
    if (key === '') {
      report(`row key: the "${column}" cell is empty; every row needs a key (it names the row's output folder)`);
      continue;
    }
    const folder = safeSegment(key).toLowerCase();
    const first = folders.get(folder);
    if (first === undefined) {
      folders.set(folder, row);
      continue;
    }
    const firstKey = keys[first] ?? '';
    const firstAt = formatLocation(table.locate(first));
    report(
      firstKey === key
        ? `row key: "${key}" appears again (first at ${firstAt}); row keys must be unique`
        : `row key: "${key}" and "${firstKey}" (${firstAt}) would share the output folder "${safeSegment(key)}"`,
    );
  }
  return keys;
}
