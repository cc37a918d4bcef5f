/** The contract's `plan --json` object (keep the names; fields may be added). */
import { shardFolder } from '../select/shard.js';
import type { Plan } from './plan-model.js';

export function planJson(plan: Plan) {
  return {
    pipeline: plan.pipeline,
    file: plan.file,
    rows: plan.rows,
    selection: plan.selection ? { rows: plan.selection.rows, of_rows: plan.selection.ofRows } : null,
    shard: plan.shard
      ? {
          index: plan.shard.index,
          count: plan.shard.count,
          rows: plan.shard.rows,
          folder: `shards/${shardFolder(plan.shard)}`,
          quota_share: plan.quota.share?.requests ?? null,
          quota_per_window: plan.quota.share?.perWindow ?? null,
          quota_source: plan.quota.share?.source ?? 'split',
          budget_share: plan.budget.maxCredits ?? null,
          budget_source: plan.budget.split ? 'split' : (plan.budget.source ?? null),
        }
      : null,
    steps: plan.instances,
    credits: {
      total: plan.credits.total,
      by_model: Object.fromEntries(plan.credits.byModel),
      by_step: Object.fromEntries(plan.credits.byStep),
      by_row: Object.fromEntries(plan.credits.byRow),
      unpriced: plan.credits.unpriced,
      estimated: plan.credits.estimated,
      estimated_credits: plan.credits.estimatedCredits,
      lower_bound: plan.credits.lowerBound,
    },
    requests: {
      submits: plan.requests.submits,
      polls_expected: plan.requests.pollsExpected,
      polls_worst: plan.requests.pollsWorst,
      videos: plan.requests.videos,
    },
    quota: {
      plan: plan.quota.plan,
      limit: plan.quota.limit,
      used_24h: plan.quota.used24h,
      used_source: plan.quota.usedSource,
      remaining: plan.quota.remaining,
      refused_at: plan.quota.refusedAt === null ? null : new Date(plan.quota.refusedAt).toISOString(),
    },
    budget: {
      max_credits: plan.budget.maxCredits ?? null,
      source: plan.budget.source ?? null,
      split: plan.budget.split ? { total: plan.budget.split.total, count: plan.budget.split.count } : null,
    },
    fit: plan.fit
      ? {
          rows_with_work: plan.fit.rowsWithWork,
          rows_tonight: plan.fit.rowsTonight,
          rows_deferred: plan.fit.deferred.quota + plan.fit.deferred.budget,
          deferred_by: { quota: plan.fit.deferred.quota, budget: plan.fit.deferred.budget },
          deferred_rows: plan.fit.deferredRows,
          windows_more: plan.fit.windowsMore,
          never_fit: plan.fit.neverFit,
          free_up: plan.fit.freeUp
            ? { requests: plan.fit.freeUp.requests, by: new Date(plan.fit.freeUp.by).toISOString() }
            : null,
        }
      : null,
    cached: { steps: plan.cached.instances, credits_saved: plan.cached.creditsSaved, rows: plan.cached.rows },
    to_send: { rows: plan.rowsToSend.length, steps: plan.requests.submits, credits: plan.credits.total },
    redo: { steps: plan.redo.instances, rows: plan.redo.rows, credits: plan.redo.credits },
    skipped: { when: plan.skipped.when, upstream: plan.skipped.upstream },
    lines: plan.lines.map((line) => ({
      step: line.stepId,
      operation: line.operation,
      model: line.priceKey,
      steps: line.instances,
      units: line.units,
      credits_each: line.unitCredits,
      credits: line.credits,
      price_source: line.source,
      cached: line.cached,
    })),
    unpriced: plan.unpriced.map((group) => ({
      model: group.model,
      tier: group.tier,
      steps: [...group.steps],
      count: group.instances,
    })),
    refused: plan.refused,
    reasons: plan.reasons,
    warnings: plan.warnings,
  };
}

export type PlanJson = ReturnType<typeof planJson>;
