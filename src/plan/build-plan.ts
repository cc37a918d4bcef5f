/**
 * Build the plan of an expanded pipeline in one pass over its instances: price each, count its
 * requests (one submit, plus status polls for video), and add it to the totals by step, model
 * and row. Instances an earlier run can reuse (the runner's cache) cost nothing and are counted
 * as cached; those it pays for again on purpose (--redo) are counted as sent, and as redone. Only
 * the rows --rows (and --shard) chose are looked at; a shard plans with its share of the quota and
 * the budget (shard-share.ts). Then decide: refuse what does not fit the budget or the remaining
 * quota.
 */
import { pollsWithin } from '../api/poll-schedule.js';
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import { decide } from './decide.js';
import type { FitPlan, Plan, QuotaState, ShardPlan, StepLine, UnpricedGroup } from './plan-model.js';
import { fitRows } from './fit-rows.js';
import { rowNeeds } from './row-needs.js';
import { QUOTA_WINDOW_MS } from '../catalog/limits.js';
import { priceInstance } from './price-instance.js';
import { budgetShare, quotaShare, requestRoom, windowRoom } from './shard-share.js';

export interface PlanInput {
  /** `--max-credits`, else the pipeline's `budget.max_credits`. */
  readonly maxCredits?: { readonly value: number; readonly source: 'pipeline' | 'flag' };
  readonly allowUnpriced: boolean;
  /** Requests already sent with the key in the last 24 hours, and who says so. */
  readonly quotaUsed?: {
    readonly count: number;
    readonly source: 'ledger' | 'flag';
    /** The service refused for the quota, and that still holds: nothing is left. */
    readonly refusal?: { readonly at: number; readonly until: number } | undefined;
  };
  /** The runner's cache: true when an earlier run's result can be reused. */
  readonly isCached?: (instance: StepInstance) => boolean;
  /** --rows: the rows to plan; the others are neither counted nor shown. */
  readonly includeRow?: ((rowIndex: number) => boolean) | undefined;
  /** --redo: true when the run pays again for a result the folder holds (the instance is not cached). */
  readonly isRedo?: ((instance: StepInstance) => boolean) | undefined;
  /** Validation warnings, as printed, to show with the plan. */
  readonly warnings?: readonly string[];
  /**
   * `--fit`: plan only the whole rows that fit the quota left and the budget (in `order`), and
   * defer the rest. `lastRequestAt`: the newest request of the ledger's window, to say when the
   * window frees up.
   */
  readonly fit?: { readonly order: ArrayLike<number>; readonly lastRequestAt?: number | undefined };
  /**
   * `--shard`: the shard planned (`includeRow` takes only its rows) and `api.quota_per_shard`. The
   * quota and the budget become the shard's share.
   */
  readonly shard?: ShardPlan & { readonly quotaPerShard?: number | undefined };
}

export function buildPlan(expansion: Expansion, input: PlanInput): Plan {
  const { pipeline } = expansion;
  const { video } = pipeline.api;
  const schedule = { intervalSeconds: video.pollIntervalSeconds, maxIntervalSeconds: video.pollIntervalMaxSeconds };
  const pollsPerVideoExpected = pollsWithin(video.expectedSeconds, schedule);
  const pollsPerVideoWorst = pollsWithin(video.timeoutSeconds, schedule);

  const limit = pipeline.api.dailyQuota;
  const used = input.quotaUsed?.count ?? null;
  const keyQuota: QuotaState = {
    plan: pipeline.api.plan,
    limit,
    used24h: used,
    usedSource: input.quotaUsed?.source ?? 'unknown',
    remaining: limit === null ? null : input.quotaUsed?.refusal ? 0 : Math.max(0, limit - (used ?? 0)),
    refusedAt: input.quotaUsed?.refusal?.at ?? null,
  };
  const { shard } = input;
  const quota: QuotaState = shard ? { ...keyQuota, share: quotaShare(keyQuota, shard) } : keyQuota;
  const maxCredits = shard
    ? budgetShare(input.maxCredits, shard.count)
    : input.maxCredits && { ...input.maxCredits, split: undefined };
  const fit = input.fit ? planFit(expansion, input, quota, maxCredits?.value) : undefined;

  const lines = new Map<string, StepLine>();
  const unpriced = new Map<string, UnpricedGroup>();
  const byModel = new Map<string, number>();
  const byStep = new Map<string, number>();
  const byRow = new Map<string, number>();
  let total = 0;
  let estimatedCredits = 0;
  let unpricedInstances = 0;
  let cachedInstances = 0;
  let creditsSaved = 0;
  let submits = 0;
  let videos = 0;
  // Rows with a step to send, and rows with any step at all: the rest are wholly cached.
  const rowsToSend = new Set<string>();
  const rowsWithSteps = new Set<string>();
  const redo = { instances: 0, rows: new Set<string>(), credits: 0 };
  const add = (map: Map<string, number>, key: string, credits: number) => map.set(key, (map.get(key) ?? 0) + credits);

  for (const instance of expansion.instances(input.includeRow)) {
    // Rows --fit defers tonight are not planned: neither sent nor counted.
    if (fit && fit.tonight[instance.rowIndex] !== 1) continue;
    const price = priceInstance(instance, pipeline.pricing);
    const cached = input.isCached?.(instance) ?? false;
    const unitCredits = price.priced ? price.unitCredits : null;
    const source = price.priced ? price.source : 'unpriced';
    const lineKey = `${instance.stepId}\u0000${price.priceKey}\u0000${unitCredits}\u0000${source}`;
    let line = lines.get(lineKey);
    if (!line) {
      line = {
        stepId: instance.stepId,
        operation: instance.operation,
        priceKey: price.priceKey,
        unitCredits,
        source,
        instances: 0,
        units: 0,
        credits: 0,
        cached: 0,
      };
      lines.set(lineKey, line);
    }
    line.instances++;
    line.units += price.units;
    add(byRow, instance.rowKey, 0);
    rowsWithSteps.add(instance.rowKey);

    if (cached) {
      line.cached++;
      cachedInstances++;
      if (price.priced) creditsSaved += price.credits;
      continue;
    }
    submits++;
    rowsToSend.add(instance.rowKey);
    if (input.isRedo?.(instance)) {
      redo.instances++;
      redo.rows.add(instance.rowKey);
      if (price.priced) redo.credits += price.credits;
    }
    if (instance.operation === 'video') videos++;
    if (!price.priced) {
      unpricedInstances++;
      const groupKey = `${price.priceKey}\u0000${price.tier}`;
      const group = unpriced.get(groupKey) ?? {
        model: price.priceKey,
        tier: price.tier,
        steps: new Set<string>(),
        instances: 0,
      };
      group.steps.add(instance.stepId);
      group.instances++;
      unpriced.set(groupKey, group);
      continue;
    }
    line.credits += price.credits;
    total += price.credits;
    if (price.source !== 'published') estimatedCredits += price.credits;
    add(byModel, price.priceKey, price.credits);
    add(byStep, instance.stepId, price.credits);
    add(byRow, instance.rowKey, price.credits);
  }

  const budget = {
    maxCredits: maxCredits?.value,
    source: maxCredits?.source,
    split: maxCredits?.split,
  };
  const counts = input.includeRow ? expansion.countsOf(input.includeRow) : expansion.counts;
  const plan = {
    pipeline: pipeline.name,
    file: pipeline.file,
    rows: counts.rows,
    selection: input.includeRow ? { rows: counts.rows, ofRows: expansion.counts.rows } : undefined,
    shard: shard && { index: shard.index, count: shard.count, rows: shard.rows },
    instances: counts.instances,
    skipped: { when: counts.skippedWhen, upstream: counts.skippedUpstream },
    lines: [...lines.values()],
    credits: {
      total,
      byModel,
      byStep,
      byRow,
      unpriced: unpricedInstances,
      estimatedCredits,
      estimated: estimatedCredits > 0,
      lowerBound: unpricedInstances > 0,
    },
    unpriced: [...unpriced.values()],
    cached: { instances: cachedInstances, creditsSaved, rows: rowsWithSteps.size - rowsToSend.size },
    rowsToSend: [...rowsToSend],
    redo: { instances: redo.instances, rows: redo.rows.size, credits: redo.credits },
    requests: {
      submits,
      videos,
      pollsExpected: videos * pollsPerVideoExpected,
      pollsWorst: videos * pollsPerVideoWorst,
      pollsPerVideoExpected,
      pollsPerVideoWorst,
    },
    quota,
    budget,
    fit: fit?.plan,
  };
  const decision = decide(plan, { allowUnpriced: input.allowUnpriced, timeoutSeconds: video.timeoutSeconds });
  return {
    ...plan,
    refused: decision.reasons.length > 0,
    reasons: decision.reasons,
    warnings: [...(input.warnings ?? []), ...decision.warnings],
  };
}

/** Which rows fit tonight, and what the rest needs: see fit-rows.ts. */
function planFit(
  expansion: Expansion,
  input: PlanInput,
  quota: QuotaState,
  maxCredits: number | undefined,
): { readonly tonight: Uint8Array; readonly plan: FitPlan } {
  const isCached = input.isCached ?? (() => false);
  const needs = rowNeeds(expansion, isCached, input.includeRow);
  const order = input.fit?.order ?? [];
  const budget = maxCredits ?? Number.POSITIVE_INFINITY;
  const result = fitRows(
    order,
    needs,
    { requests: requestRoom(quota) ?? Number.POSITIVE_INFINITY, credits: budget },
    { requests: windowRoom(quota) ?? Number.POSITIVE_INFINITY, credits: budget },
  );
  const key = (row: number) => expansion.rowKeys[row] ?? String(row + 1);
  const deferredRows: string[] = [];
  for (let at = 0; at < order.length; at++) {
    const row = order[at] as number;
    if (result.tonight[row] !== 1) deferredRows.push(key(row));
  }
  const lastRequestAt = input.fit?.lastRequestAt;
  return {
    tonight: result.tonight,
    plan: {
      order,
      needs,
      rowsWithWork: result.rowsWithWork,
      rowsTonight: result.rowsTonight,
      deferred: result.deferred,
      deferredRows,
      windowsMore: result.windowsMore,
      neverFit: result.neverFit.map(key),
      freeUp:
        lastRequestAt !== undefined && quota.used24h
          ? { requests: quota.used24h, by: lastRequestAt + QUOTA_WINDOW_MS }
          : undefined,
    },
  };
}
