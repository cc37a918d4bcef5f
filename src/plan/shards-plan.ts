/**
 * `plan --shards n`: the plans of the n shards side by side, to choose n before a matrix runs them.
 * Each shard's own plan (as `plan --shard i/n` shows it, its share of the quota and the budget
 * included), reduced to a line; the totals, which the parts must not exceed; and how even the
 * shards are, since the matrix takes as long as its largest shard. The core returns this; the
 * table and the JSON are views of it.
 */
import type { Plan, QuotaState } from './plan-model.js';
import { requestRoom } from './shard-share.js';

/** One shard's line. */
export interface ShardLine {
  readonly index: number;
  readonly count: number;
  /** Rows planned: the shard's (with --rows, those of them it chose). */
  readonly rows: number;
  /** Rows with something to send. */
  readonly rowsToSend: number;
  /** Step instances, cached ones included. */
  readonly steps: number;
  readonly cachedSteps: number;
  readonly credits: number;
  readonly estimated: boolean;
  readonly lowerBound: boolean;
  readonly submits: number;
  readonly pollsExpected: number;
  /** Submits plus the video polls expected: what is checked against the quota share. */
  readonly requests: number;
  readonly requestsWorst: number;
  /** The shard's share of the quota left; null when the limit is unknown. */
  readonly quotaShare: number | null;
  /** The shard's budget; undefined: none. */
  readonly budgetShare: number | undefined;
  readonly fitsQuota: boolean;
  readonly fitsBudget: boolean;
  /** `--fit`: rows deferred to a later run; undefined without --fit. */
  readonly deferredRows: number | undefined;
  readonly refused: boolean;
  readonly reasons: readonly string[];
  readonly warnings: readonly string[];
}

/** How far apart the shards are on one measure: the largest shard sets how long the matrix takes. */
export interface Spread {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  /** max / mean: 1 is perfectly even; null when the mean is 0. */
  readonly maxOverMean: number | null;
}

export interface ShardsPlan {
  readonly pipeline: string;
  readonly file: string;
  readonly count: number;
  /** Rows of the rows file. */
  readonly ofRows: number;
  readonly shards: readonly ShardLine[];
  readonly totals: {
    readonly rows: number;
    readonly steps: number;
    readonly credits: number;
    readonly requests: number;
    readonly quotaShares: number | null;
    readonly budgetShares: number | undefined;
  };
  readonly evenness: { readonly rows: Spread; readonly credits: Spread; readonly requests: Spread };
  /** The key's quota, which the shards share. */
  readonly quota: QuotaState;
  /** The budget the shards share: the pipeline's, divided; or --max-credits, each shard's own. */
  readonly budget: Plan['budget'];
  readonly refused: boolean;
  /** Warnings every shard's plan has (validation, no budget, quota used unknown). */
  readonly warnings: readonly string[];
  /** Shards with warnings of their own (estimates, the worst case of polls), by index. */
  readonly shardsWithWarnings: readonly number[];
}

/** `plans`: shard 1 to n, each planned with `--shard i/n`. */
export function shardsPlan(plans: readonly Plan[]): ShardsPlan {
  const first = plans[0];
  if (!first?.shard) throw new Error('shardsPlan needs the plan of each shard');
  const shards = plans.map(shardLine);
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const shares = (values: readonly (number | null | undefined)[]) =>
    values.every((value) => typeof value === 'number') ? sum(values as number[]) : undefined;
  const common = first.warnings.filter((warning) => plans.every((plan) => plan.warnings.includes(warning)));
  return {
    pipeline: first.pipeline,
    file: first.file,
    count: first.shard.count,
    ofRows: first.selection?.ofRows ?? first.rows,
    shards,
    totals: {
      rows: sum(shards.map((shard) => shard.rows)),
      steps: sum(shards.map((shard) => shard.steps)),
      credits: sum(shards.map((shard) => shard.credits)),
      requests: sum(shards.map((shard) => shard.requests)),
      quotaShares: shares(shards.map((shard) => shard.quotaShare)) ?? null,
      budgetShares: shares(shards.map((shard) => shard.budgetShare)),
    },
    evenness: {
      rows: spread(shards.map((shard) => shard.rows)),
      credits: spread(shards.map((shard) => shard.credits)),
      requests: spread(shards.map((shard) => shard.requests)),
    },
    quota: first.quota,
    budget: first.budget,
    refused: shards.some((shard) => shard.refused),
    warnings: common,
    shardsWithWarnings: plans
      .filter((plan) => plan.warnings.some((warning) => !common.includes(warning)))
      .map((plan) => plan.shard?.index ?? 0),
  };
}

function shardLine(plan: Plan): ShardLine {
  const { requests, credits, budget } = plan;
  const expected = requests.submits + requests.pollsExpected;
  const room = requestRoom(plan.quota);
  return {
    index: plan.shard?.index ?? 1,
    count: plan.shard?.count ?? 1,
    rows: plan.rows,
    rowsToSend: plan.rowsToSend.length,
    steps: plan.instances,
    cachedSteps: plan.cached.instances,
    credits: credits.total,
    estimated: credits.estimated,
    lowerBound: credits.lowerBound,
    submits: requests.submits,
    pollsExpected: requests.pollsExpected,
    requests: expected,
    requestsWorst: requests.submits + requests.pollsWorst,
    quotaShare: room,
    budgetShare: budget.maxCredits,
    fitsQuota: room === null || expected <= room,
    fitsBudget: budget.maxCredits === undefined || credits.total <= budget.maxCredits,
    deferredRows: plan.fit ? plan.fit.deferred.quota + plan.fit.deferred.budget : undefined,
    refused: plan.refused,
    reasons: plan.reasons,
    warnings: plan.warnings,
  };
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { min: 0, max: 0, mean: 0, maxOverMean: null };
  const min = Math.min(...values);
  const max = Math.max(...values);
  const mean = values.reduce((total, value) => total + value, 0) / values.length;
  return { min, max, mean, maxOverMean: mean > 0 ? max / mean : null };
}
