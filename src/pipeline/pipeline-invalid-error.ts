/**
 * A pipeline that did not validate, thrown by the library's `plan()` and `run()` (the CLI prints
 * the problems and exits 2 instead). Carries every problem, so a script can show them all.
 */
import { AssetlineError, EXIT } from '../errors.js';
import { compareProblems, formatProblem, type Problem } from './problem.js';
import type { ValidationResult } from './validate-pipeline.js';

export class PipelineInvalidError extends AssetlineError {
  /** The errors, then the warnings, in file order. */
  readonly problems: readonly Problem[];

  constructor(result: ValidationResult) {
    const problems = [...result.errors, ...result.warnings].sort(compareProblems);
    super(
      'pipeline-invalid',
      `${problems.map(formatProblem).join('\n')}\n${result.file}: invalid, nothing was sent`,
      EXIT.invalidPipeline,
    );
    this.name = 'PipelineInvalidError';
    this.problems = problems;
  }
}
