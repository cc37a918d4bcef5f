/**
 * `priority: "${{ row.<column> }}"`: which rows a run starts first. Rows that must not wait (a
 * launch tomorrow) go before the rest when the quota or the budget cannot cover the whole sheet
 * tonight (`--fit`), and before the rest of any run that stops early. Higher first; rows of equal
 * priority keep the sheet's order; an empty cell is 0. Only row values can be used: the order is
 * known before anything is sent.
 */
import { didYouMean } from './did-you-mean.js';
import type { ProblemCollector } from './problem-collector.js';
import { columnIndex, type RowTable } from './rows/row-table.js';
import { type CellValue, renderTemplate } from './template/render-template.js';
import { hasTemplate, type ParsedTemplate, parseTemplate } from './template/template-syntax.js';
import type { YamlLocator } from './yaml/yaml-locator.js';

/** The `priority:` template, checked against the rows' columns; undefined when absent or broken. */
export function compilePriority(
  text: string | undefined,
  columns: readonly string[] | undefined,
  locator: YamlLocator,
  collector: ProblemCollector,
): ParsedTemplate | undefined {
  if (text === undefined) return undefined;
  const at = locator.locate(['priority']);
  if (!hasTemplate(text)) {
    collector.error(
      'priority-template',
      `priority: expected a row value such as "\${{ row.priority }}" (higher runs first), got "${text}": one number for every row orders nothing`,
      at,
    );
    return undefined;
  }
  const template = parseTemplate(text);
  for (const error of template.errors) collector.error('template-syntax', `priority: ${error.message}`, at);
  if (template.errors.length > 0) return undefined;
  let ok = true;
  for (const part of template.parts) {
    if (part.kind !== 'ref') continue;
    if (part.ref.kind === 'step') {
      collector.error(
        'priority-step-output',
        `priority: can use row values only, not ${part.source} (the order is decided before anything is sent)`,
        at,
      );
      ok = false;
    } else if (columns !== undefined && !columns.includes(part.ref.column)) {
      collector.error(
        'template-row-column',
        `priority: unknown column "${part.ref.column}" in ${part.source}: the rows have ${columns.join(', ') || 'no columns'}${didYouMean(part.ref.column, columns)}`,
        at,
      );
      ok = false;
    }
  }
  return ok ? template : undefined;
}

/** Each row's priority, or a problem at the row for a value that is not a number. */
export function rowPriorities(
  template: ParsedTemplate,
  table: RowTable,
  rowLabel: (row: number) => string,
  collector: ProblemCollector,
): Float64Array {
  const columns = columnIndex(table);
  const priorities = new Float64Array(table.cells.length);
  for (let row = 0; row < table.cells.length; row++) {
    const cells = table.cells[row] ?? [];
    const text = renderTemplate(template, (column): CellValue => {
      const at = columns.get(column);
      return at === undefined ? undefined : cells[at];
    }).trim();
    const value = text === '' ? 0 : Number(text);
    if (Number.isFinite(value)) {
      priorities[row] = value;
      continue;
    }
    collector.addRowProblem('priority|number', 'priority', {
      severity: 'error',
      code: 'priority-number',
      message: `${rowLabel(row)}, priority: expected a number (higher runs first), got "${text}"`,
      location: table.locate(row),
    });
  }
  return priorities;
}

/** Row indices, highest priority first; equal priorities keep the sheet's order. */
export function priorityOrder(priorities: Float64Array): Uint32Array {
  const order = Uint32Array.from({ length: priorities.length }, (_, row) => row);
  // A typed array's sort is not guaranteed stable: ties are broken by the row index.
  return order.sort((a, b) => (priorities[b] ?? 0) - (priorities[a] ?? 0) || a - b);
}
