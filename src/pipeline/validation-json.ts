/** The contract's `validate --json` object (keep the names; fields may be added). */
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
    counts: result.expansion?.counts ?? null,
  };
}

export function validationJson(results: readonly ValidationResult[]) {
  return { valid: results.every((result) => result.errors.length === 0), files: results.map(fileJson) };
}

export type ValidationJson = ReturnType<typeof validationJson>;
