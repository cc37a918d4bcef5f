/**
 * Collects problems from every stage. Per-row problems are grouped (same check, step and field) and
 * capped, so a template that breaks 100,000 rows prints a handful of examples and a count, not a
 * wall of text. Identical problems (the same default used by several steps) are reported once.
 */
import { formatProblem, type Location, type Problem } from './problem.js';

export const ROW_EXAMPLES_PER_GROUP = 5;

interface Group {
  readonly first: Problem;
  readonly label: string;
  shown: number;
  hidden: number;
}

export class ProblemCollector {
  readonly #problems: Problem[] = [];
  readonly #seen = new Set<string>();
  readonly #groups = new Map<string, Group>();

  add(problem: Problem): void {
    const key = formatProblem(problem);
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#problems.push(problem);
  }

  addAll(problems: Iterable<Problem>): void {
    for (const problem of problems) this.add(problem);
  }

  error(code: string, message: string, location: Location): void {
    this.add({ severity: 'error', code, message, location });
  }

  warning(code: string, message: string, location: Location): void {
    this.add({ severity: 'warning', code, message, location });
  }

  /** A problem of one row; `group` identifies what such rows share, `label` says it to a person. */
  addRowProblem(group: string, label: string, problem: Problem): void {
    const existing = this.#groups.get(group);
    if (!existing) {
      this.#groups.set(group, { first: problem, label, shown: 1, hidden: 0 });
      this.add(problem);
    } else if (existing.shown < ROW_EXAMPLES_PER_GROUP) {
      existing.shown++;
      this.add(problem);
    } else {
      existing.hidden++;
    }
  }

  hasErrors(): boolean {
    return this.#problems.some((problem) => problem.severity === 'error');
  }

  /** Every problem, with one summary line per capped group. */
  problems(): Problem[] {
    const summaries: Problem[] = [];
    for (const group of this.#groups.values()) {
      if (group.hidden === 0) continue;
      const rows = `${group.hidden} more row${group.hidden === 1 ? '' : 's'}`;
      summaries.push({ ...group.first, message: `${rows} with the same problem (${group.label}) not shown` });
    }
    return [...this.#problems, ...summaries];
  }
}
