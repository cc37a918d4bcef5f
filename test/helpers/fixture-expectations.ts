/**
 * Expectations written in a fixture's own comments:
 *   # expect: 12:7 unknown generate model "z-image-turbo2"
 *   # expect: products.csv:row 3 expected 4 cells
 *   # expect: rows.yaml:2:3 expected a row
 *   # expect: rows.json:* cannot read JSON
 *   # expect-warning: 9:5 is not offered by
 * A position is line:col in the pipeline file; <file>:row N, <file>:line:col, or <file>:* (the
 * file as a whole) for a rows file, named by its base name. The text after it must appear in the
 * problem's message.
 */
import { formatLocation, type Problem } from '../../src/pipeline/problem.js';

export interface Expectation {
  readonly severity: 'error' | 'warning';
  /** "12:7" or "products.csv:row 3". */
  readonly where: string;
  readonly text: string;
}

const LINE = /^#\s*expect(-warning)?:\s*(\d+:\d+|\S+:row \d+|\S+:\d+:\d+|\S+:\*)\s+(.+?)\s*$/;

export function readExpectations(source: string): Expectation[] {
  const out: Expectation[] = [];
  for (const line of source.split(/\r?\n/)) {
    const match = LINE.exec(line.trim());
    if (match?.[2] && match[3]) out.push({ severity: match[1] ? 'warning' : 'error', where: match[2], text: match[3] });
  }
  return out;
}

/** The short form of a problem's place, as fixtures write it. */
export function whereOf(problem: Problem, pipelineFile: string): string {
  const location = problem.location;
  if ('line' in location && location.file === pipelineFile) return `${location.line}:${location.col}`;
  const base = location.file.split('/').at(-1) ?? location.file;
  if ('line' in location || 'row' in location) return formatLocation({ ...location, file: base });
  return `${base}:*`;
}

export function matches(problem: Problem, expectation: Expectation, pipelineFile: string): boolean {
  return (
    problem.severity === expectation.severity &&
    whereOf(problem, pipelineFile) === expectation.where &&
    problem.message.includes(expectation.text)
  );
}
