/** `plan --shards n --json`: the shards side by side as one object (keep the names; fields may be added). */
import { shardFolder } from '../select/shard.js';
import type { ShardsPlan, Spread } from './shards-plan.js';

export function shardsJson(plan: ShardsPlan) {
  const { quota, budget } = plan;
  return {
    pipeline: plan.pipeline,
    file: plan.file,
    shard_count: plan.count,
    rows: plan.ofRows,
    shards: plan.shards.map((shard) => ({
      index: shard.index,
      count: shard.count,
      folder: `shards/${shardFolder(shard)}`,
      rows: shard.rows,
      rows_to_send: shard.rowsToSend,
      steps: shard.steps,
      cached_steps: shard.cachedSteps,
      credits: shard.credits,
      estimated: shard.estimated,
      lower_bound: shard.lowerBound,
      submits: shard.submits,
      polls_expected: shard.pollsExpected,
      requests: shard.requests,
      requests_worst: shard.requestsWorst,
      quota_share: shard.quotaShare,
      budget_share: shard.budgetShare ?? null,
      fits_quota: shard.fitsQuota,
      fits_budget: shard.fitsBudget,
      deferred_rows: shard.deferredRows ?? null,
      refused: shard.refused,
      reasons: shard.reasons,
      warnings: shard.warnings,
    })),
    totals: {
      rows: plan.totals.rows,
      steps: plan.totals.steps,
      credits: plan.totals.credits,
      requests: plan.totals.requests,
      quota_shares: plan.totals.quotaShares,
      budget_shares: plan.totals.budgetShares ?? null,
    },
    evenness: {
      rows: spreadJson(plan.evenness.rows),
      credits: spreadJson(plan.evenness.credits),
      requests: spreadJson(plan.evenness.requests),
    },
    quota: {
      plan: quota.plan,
      limit: quota.limit,
      used_24h: quota.used24h,
      used_source: quota.usedSource,
      remaining: quota.remaining,
      refused_at: quota.refusedAt === null ? null : new Date(quota.refusedAt).toISOString(),
      per_shard: quota.share?.requests ?? null,
      per_shard_source: quota.share?.source ?? null,
    },
    budget: {
      max_credits: budget.split?.total ?? budget.maxCredits ?? null,
      source: budget.source ?? null,
      per_shard: budget.maxCredits ?? null,
      split: budget.split !== undefined,
    },
    refused: plan.refused,
    refused_shards: plan.shards.filter((shard) => shard.refused).map((shard) => shard.index),
    warnings: plan.warnings,
  };
}

/** Ratios to two decimals: enough to compare, and the same on every machine. */
function spreadJson(spread: Spread) {
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    min: spread.min,
    max: spread.max,
    mean: round(spread.mean),
    max_over_mean: spread.maxOverMean === null ? null : round(spread.maxOverMean),
  };
}

export type ShardsJson = ReturnType<typeof shardsJson>;
