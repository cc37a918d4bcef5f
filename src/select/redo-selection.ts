/**
 * `--redo SEL`: results to pay for again although they are cached. A selector is `ROW:STEP`,
 * `ROW` (every step of the row) or `*:STEP` (the step in every row); the row part is read as
 * `--rows` reads a selector (a key, a glob, a row number or a range), the step part is a step id
 * or a glob over step ids. A row key that is itself a whole selector wins over splitting it at its
 * last colon (step ids have none). Every step that uses a redone step's output, directly or
 * through another, is redone too, in the same row: its input is about to change.
 */
import { UsageError } from '../errors.js';
import { didYouMean } from '../pipeline/did-you-mean.js';
import { globPattern, isGlob } from './key-glob.js';
import { type RowKeys, RowMatcher, selectorsOf } from './row-matcher.js';

/** A step as the selection needs it: its id and the ids of the steps it uses. */
export interface SelectableStep {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

/** The instances to redo, by row and step index. */
export class RedoSet {
  readonly #steps: number;
  readonly #marks: Uint8Array;

  constructor(rows: number, steps: number) {
    this.#steps = steps;
    this.#marks = new Uint8Array(rows * steps);
  }

  has(rowIndex: number, stepIndex: number): boolean {
    return this.#marks[rowIndex * this.#steps + stepIndex] === 1;
  }

  /** @internal used while selecting. */
  mark(rowIndex: number, stepIndex: number): void {
    this.#marks[rowIndex * this.#steps + stepIndex] = 1;
  }
}

export interface RedoInput {
  readonly rows: RowKeys;
  readonly steps: readonly SelectableStep[];
  /** With --rows: the rows it takes (a redo of any other row would do nothing). */
  readonly selected?: ((rowIndex: number) => boolean) | undefined;
  /**
   * With --shard: the shard's rows. A selector whose rows all belong to other shards redoes nothing
   * here and is no mistake: every job of a matrix is given the same --redo.
   */
  readonly scope?: ((rowIndex: number) => boolean) | undefined;
  readonly matcher?: RowMatcher;
}

export function selectRedo(values: readonly string[], input: RedoInput): RedoSet {
  const { rows, steps } = input;
  const matcher = input.matcher ?? new RowMatcher(rows);
  const redo = new RedoSet(rows.count, steps.length);
  const problems: string[] = [];
  const touched = new Set<number>();
  for (const selector of selectorsOf(values)) {
    const problem = (text: string) => problems.push(`--redo ${selector}: ${text}`);
    if (selector === '') {
      problems.push('--redo: an empty selector (two commas, or a comma at an end)');
      continue;
    }
    const { rowPart, stepPart } = split(selector, matcher);
    const stepIndices = stepPart === undefined ? steps.map((_, i) => i) : matchSteps(stepPart, steps);
    if (typeof stepIndices === 'string') problem(stepIndices);
    const rowMatch = rowPart === '*' ? { rows: allRows(rows.count) } : matcher.match(rowPart);
    if ('problem' in rowMatch) problem(rowMatch.problem);
    if (typeof stepIndices === 'string' || 'problem' in rowMatch) continue;
    const chosen = input.selected ? rowMatch.rows.filter(input.selected) : rowMatch.rows;
    if (chosen.length === 0) {
      problem(`${rowMatch.rows.length === 1 ? 'its row is not' : 'none of its rows is'} selected by --rows`);
      continue;
    }
    const taken = input.scope ? chosen.filter(input.scope) : chosen;
    for (const row of taken) {
      touched.add(row);
      for (const step of stepIndices) redo.mark(row, step);
    }
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  withDependents(redo, touched, steps);
  return redo;
}

/** `ROW:STEP` or `ROW`: a whole selector that is a row key stays whole. */
function split(selector: string, matcher: RowMatcher): { rowPart: string; stepPart: string | undefined } {
  const colon = selector.lastIndexOf(':');
  if (colon < 0 || matcher.hasKey(selector)) return { rowPart: selector, stepPart: undefined };
  return { rowPart: selector.slice(0, colon), stepPart: selector.slice(colon + 1) };
}

/** The steps a step part names, or why it names none. */
function matchSteps(part: string, steps: readonly SelectableStep[]): number[] | string {
  const ids = steps.map((step) => step.id);
  if (part === '') return 'no step after the colon (expected ROW:STEP)';
  if (!isGlob(part)) {
    const index = ids.indexOf(part);
    return index >= 0 ? [index] : `no step "${part}" in the pipeline${didYouMean(part, ids)}`;
  }
  const pattern = globPattern(part);
  const matched = ids.flatMap((id, index) => (pattern.test(id) ? [index] : []));
  return matched.length > 0 ? matched : `no step id matches "${part}"`;
}

function allRows(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

/**
 * Every step that uses a marked step's output, transitively, in the marked rows. Steps use only
 * earlier steps, so one pass in step order reaches the end of every chain.
 */
function withDependents(redo: RedoSet, rows: ReadonlySet<number>, steps: readonly SelectableStep[]): void {
  const index = new Map(steps.map((step, i) => [step.id, i]));
  const uses = steps.map((step) => step.dependsOn.flatMap((id) => index.get(id) ?? []));
  for (const row of rows) {
    for (const [step, used] of uses.entries()) {
      if (!redo.has(row, step) && used.some((at) => redo.has(row, at))) redo.mark(row, step);
    }
  }
}
