/**
 * Validate one pipeline file and plan it: what `plan`, `run --dry-run` and the library's `plan()`
 * share, with the rows, redos and shard chosen (a selector that names nothing is a UsageError).
 * Sends nothing; reads the request ledger for the quota already used, and the output folder the run
 * would use (a shard's own) for what it already holds. `plan --shards n` plans each of the n shards
 * so, reading the ledger once.
 */
import path from 'node:path';
import type { SecretKey } from '../api/secret-key.js';
import type { Expansion } from '../pipeline/expansion.js';
import { formatProblem } from '../pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { cachedWork } from '../run/cached-work.js';
import { outputRoot } from '../run/output-layout.js';
import { resolveSelection, resolveShardSelections, type Selection } from '../select/selection.js';
import type { Shard } from '../select/shard.js';
import type { Plan } from './plan-model.js';
import { preflightWith, type QuotaUsage, quotaUsage } from './preflight.js';

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
  /** `--shard i/n`: plan only the shard's rows, with its share of the quota and the budget. */
  readonly shard?: Shard | undefined;
}

export interface PlannedFile {
  readonly validation: ValidationResult;
  /** Undefined when the pipeline is invalid. */
  readonly plan: Plan | undefined;
}

export interface PlannedShards {
  readonly validation: ValidationResult;
  /** Shard 1 to n, in order; undefined when the pipeline is invalid. */
  readonly plans: readonly Plan[] | undefined;
}

export async function planFile(file: string, options: PlanFileOptions): Promise<PlannedFile> {
  const validation = await validatePipelineFile(path.resolve(options.cwd, file), { displayPath: file });
  const { expansion } = validation;
  if (!expansion) return { validation, plan: undefined };
  const selection = resolveSelection(expansion, { rows: options.rows, redo: options.redo, shard: options.shard });
  const plan = await planSelection(expansion, selection, await usageOf(options), validation, options);
  return { validation, plan };
}

/** The plan of each of `count` shards, as `plan --shard i/count` would show it. */
export async function planShardsFile(
  file: string,
  count: number,
  options: Omit<PlanFileOptions, 'shard'>,
): Promise<PlannedShards> {
  const validation = await validatePipelineFile(path.resolve(options.cwd, file), { displayPath: file });
  const { expansion } = validation;
  if (!expansion) return { validation, plans: undefined };
  const usage = await usageOf(options);
  const plans: Plan[] = [];
  for (const selection of resolveShardSelections(expansion, { rows: options.rows, redo: options.redo }, count))
    plans.push(await planSelection(expansion, selection, usage, validation, options));
  return { validation, plans };
}

function usageOf(options: PlanFileOptions): Promise<QuotaUsage | undefined> {
  return quotaUsage({
    ...(options.quotaUsed !== undefined && { quotaUsed: options.quotaUsed }),
    stateDir: path.resolve(options.cwd, options.stateDir ?? DEFAULT_STATE_DIR),
    now: options.now ?? Date.now(),
    ...(options.key && { ledgerKeyId: options.key.id() }),
  });
}

async function planSelection(
  expansion: Expansion,
  selection: Selection,
  usage: QuotaUsage | undefined,
  validation: ValidationResult,
  options: PlanFileOptions,
): Promise<Plan> {
  // What the run would reuse is not what it will send: the plan covers only the rest.
  const probe = options.fresh
    ? undefined
    : await cachedWork(expansion, outputRoot(options.cwd, options.out, expansion.pipeline), selection);
  return preflightWith(expansion, usage, {
    allowUnpriced: options.allowUnpriced,
    warnings: validation.warnings.map(formatProblem),
    isCached: (instance) => probe?.isCached(instance) ?? false,
    isRedo: (instance) => probe?.isRedone(instance) ?? false,
    includeRow: selection.rowOrder ? selection.includesRow : undefined,
    fit: options.fit ?? false,
    shard: selection.shard && {
      index: selection.shard.index,
      count: selection.shard.count,
      rows: selection.shard.rows,
    },
    ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
  });
}
