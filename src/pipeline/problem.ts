/**
 * A problem found in a pipeline (or in the rows it reads), with where it is. Validation collects
 * every problem instead of stopping at the first, and prints each as `file:line:col: message`
 * (or `file:row N: message` for rows of a table file).
 */

export type Severity = 'error' | 'warning';

/** A place in a YAML file (1-based line and column). */
export interface FilePosition {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** A record of a CSV or JSON rows file, numbered as a spreadsheet shows it. */
export interface TableRow {
  readonly file: string;
  readonly row: number;
}

export type Location = FilePosition | TableRow | { readonly file: string };

export interface Problem {
  readonly severity: Severity;
  /** Stable, kebab-case name of the check that found it. */
  readonly code: string;
  readonly message: string;
  readonly location: Location;
}

export function formatLocation(location: Location): string {
  if ('line' in location) return `${location.file}:${location.line}:${location.col}`;
  if ('row' in location) return `${location.file}:row ${location.row}`;
  return location.file;
}

export function formatProblem(problem: Problem): string {
  const prefix = problem.severity === 'warning' ? 'warning: ' : '';
  return `${formatLocation(problem.location)}: ${prefix}${problem.message}`;
}

/** File order, then position, so the output reads top to bottom. */
export function compareProblems(a: Problem, b: Problem): number {
  const la = a.location;
  const lb = b.location;
  if (la.file !== lb.file) return la.file < lb.file ? -1 : 1;
  return sortKey(la) - sortKey(lb) || sortCol(la) - sortCol(lb);
}

function sortKey(location: Location): number {
  if ('line' in location) return location.line;
  if ('row' in location) return location.row;
  return 0;
}

function sortCol(location: Location): number {
  return 'col' in location ? location.col : 0;
}
