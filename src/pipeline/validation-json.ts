/** The contract's `validate --json` object (keep the names; fields may be added). */
import type { ExpansionCounts } from './expansion.js';
import type { Problem } from './problem.js';
import type { ValidationResult } from './validate-pipeline.js';

function problemJson(problem: Problem) {
  return { severity: problem.severity, code: problem.code, message: problem.message, ...problem.location };
}

function fileJson(result: ValidationResult) {
  return {
    file: result.file,
    valid: result.errors.length === 0,
    errors: result.errors.map(problemJson),
    warnings: result.warnings.map(problemJson),
    counts: countsJson(result.expansion?.counts),
  };
}

/** snake_case, as every JSON assetline prints. */
function countsJson(counts: ExpansionCounts | undefined) {
  if (!counts) return null;
  return {
    rows: counts.rows,
    steps: counts.steps,
    instances: counts.instances,
    skipped_when: counts.skippedWhen,
    skipped_upstream: counts.skippedUpstream,
  };
}

export function validationJson(results: readonly ValidationResult[]) {
  return { valid: results.every((result) => result.errors.length === 0), files: results.map(fileJson) };
}

export type ValidationJson = ReturnType<typeof validationJson>;
