/**
 * Validate one pipeline file and plan it: what `plan`, `run --dry-run` and the library's `plan()`
 * share, with the rows and redos chosen (a selector that names nothing is a UsageError). Sends nothing; reads the request ledger for the quota already used, and the output folder
 * the run would use for what it already holds.
 */
import path from 'node:path';
import type { SecretKey } from '../api/secret-key.js';
import { formatProblem } from '../pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { cachedWork } from '../run/cached-work.js';
import { outputRoot } from '../run/output-layout.js';
import { resolveSelection } from '../select/selection.js';
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
  /** The output folder the run would use (`--out`); see outputRoot. */
  readonly out?: string | undefined;
  /** Plan as if the output folder held nothing (`--fresh`). */
  readonly fresh?: boolean | undefined;
  /** The clock the request ledger is read by (tests move it on a day). */
  readonly now?: number | undefined;
  /** `--fit`: plan the whole rows that fit the quota left and the budget; defer the rest. */
  readonly fit?: boolean | undefined;
  /** `--rows`: plan only these rows (see select/row-matcher.ts for the grammar). */
  readonly rows?: readonly string[] | undefined;
  /** `--redo`: pay again for these cached results (`ROW:STEP`, `ROW`, `*:STEP`). */
  readonly redo?: readonly string[] | undefined;
}

export interface PlannedFile {
  readonly validation: ValidationResult;
  /** Undefined when the pipeline is invalid. */
  readonly plan: Plan | undefined;
}

export async function planFile(file: string, options: PlanFileOptions): Promise<PlannedFile> {
  const validation = await validatePipelineFile(path.resolve(options.cwd, file), { displayPath: file });
  const { expansion } = validation;
  if (!expansion) return { validation, plan: undefined };
  const selection = resolveSelection(expansion, { rows: options.rows, redo: options.redo });
  // What the run would reuse is not what it will send: the plan covers only the rest.
  const probe = options.fresh
    ? undefined
    : await cachedWork(expansion, outputRoot(options.cwd, options.out, expansion.pipeline), selection);
  const plan = await preflight(expansion, {
    allowUnpriced: options.allowUnpriced,
    stateDir: path.resolve(options.cwd, options.stateDir ?? DEFAULT_STATE_DIR),
    now: options.now ?? Date.now(),
    warnings: validation.warnings.map(formatProblem),
    isCached: (instance) => probe?.isCached(instance) ?? false,
    isRedo: (instance) => probe?.isRedone(instance) ?? false,
    includeRow: selection.rowOrder ? selection.includesRow : undefined,
    fit: options.fit ?? false,
    ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
    ...(options.quotaUsed !== undefined && { quotaUsed: options.quotaUsed }),
    ...(options.key && { ledgerKeyId: options.key.id() }),
  });
  return { validation, plan };
}
