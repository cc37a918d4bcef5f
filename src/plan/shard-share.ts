/**
 * A shard's part of the key's daily quota and of the team's budget. The jobs of a matrix share one
 * key and one budget but cannot see each other's ledgers while they run, so each plans with a
 * fixed part that the n parts cannot overrun together: floor(1/n) of the quota left and of the
 * budget. `api.quota_per_shard` sets a shard's quota instead (each shard with its own key: the
 * key's whole quota); `--max-credits` given with `--shard` is that shard's budget, not divided.
 */
import type { QuotaShare, QuotaState } from './plan-model.js';

export interface ShardQuotaInput {
  readonly count: number;
  /** `api.quota_per_shard`: each shard's quota per 24 hours, instead of a share of the key's. */
  readonly quotaPerShard?: number | undefined;
}

/** What a shard may send: of what is left now, and of a whole window (for --fit's later nights). */
export function quotaShare(quota: Pick<QuotaState, 'limit' | 'remaining'>, shard: ShardQuotaInput): QuotaShare {
  const { limit, remaining } = quota;
  if (shard.quotaPerShard !== undefined) {
    // Never more than the key has left: a key shared by shards is spent once.
    const own = shard.quotaPerShard;
    return {
      requests: remaining === null ? own : Math.min(own, remaining),
      perWindow: limit === null ? own : Math.min(own, limit),
      source: 'quota_per_shard',
    };
  }
  const part = (value: number | null) => (value === null ? null : Math.floor(value / shard.count));
  return { requests: part(remaining), perWindow: part(limit), source: 'split' };
}

export interface BudgetInput {
  readonly value: number;
  readonly source: 'pipeline' | 'flag';
}

/**
 * The budget a shard plans and runs with: the pipeline's divided by n, or `--max-credits` as given
 * (the caller means this shard's budget). `split` says what was divided.
 */
export function budgetShare(
  budget: BudgetInput | undefined,
  count: number,
): (BudgetInput & { readonly split: { readonly total: number; readonly count: number } | undefined }) | undefined {
  if (!budget) return undefined;
  if (budget.source === 'flag' || count === 1) return { ...budget, split: undefined };
  return { value: Math.floor(budget.value / count), source: budget.source, split: { total: budget.value, count } };
}

/** The requests a plan may use now: the shard's share, else what the key has left. */
export function requestRoom(quota: QuotaState): number | null {
  return quota.share ? quota.share.requests : quota.remaining;
}

/** The requests of a whole window: the shard's, else the key's daily limit. */
export function windowRoom(quota: QuotaState): number | null {
  return quota.share ? quota.share.perWindow : quota.limit;
}
