/**
 * Validate one pipeline file and plan it: what `plan`, `run --dry-run` and the library's `plan()`
 * share. Sends nothing; reads the request ledger for the quota already used.
 */
import path from 'node:path';
import type { SecretKey } from '../api/secret-key.js';
import { formatProblem } from '../pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import type { Plan } from './plan-model.js';
import { preflight } from './preflight.js';

export const DEFAULT_STATE_DIR = '.assetline';

export interface PlanFileOptions {
  /** Relative paths (the file, `stateDir`) are resolved against it. */
  readonly cwd: string;
  readonly allowUnpriced: boolean;
  readonly maxCredits?: number | undefined;
  readonly quotaUsed?: number | undefined;
  readonly stateDir?: string | undefined;
  /** The key whose ledger tells the quota used; without one, nothing is known to be used. */
  readonly key?: SecretKey | undefined;
}

export interface PlannedFile {
  readonly validation: ValidationResult;
  /** Undefined when the pipeline is invalid. */
  readonly plan: Plan | undefined;
}

export async function planFile(file: string, options: PlanFileOptions): Promise<PlannedFile> {
  const validation = await validatePipelineFile(path.resolve(options.cwd, file), { displayPath: file });
  if (!validation.expansion) return { validation, plan: undefined };
  const plan = await preflight(validation.expansion, {
    allowUnpriced: options.allowUnpriced,
    stateDir: path.resolve(options.cwd, options.stateDir ?? DEFAULT_STATE_DIR),
    now: Date.now(),
    warnings: validation.warnings.map(formatProblem),
    ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
    ...(options.quotaUsed !== undefined && { quotaUsed: options.quotaUsed }),
    ...(options.key && { ledgerKeyId: options.key.id() }),
  });
  return { validation, plan };
}
