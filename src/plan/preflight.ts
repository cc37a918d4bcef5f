/**
 * The check before anything is sent, shared by `plan` and `run`: how much quota is already used
 * (--quota-used, else the local ledger of this key, else unknown), then the plan and its verdict.
 */
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import { RequestLedger } from '../state/request-ledger.js';
import { buildPlan, type PlanInput } from './build-plan.js';
import type { Plan, ShardPlan } from './plan-model.js';

export interface PreflightOptions {
  /** `--max-credits`; wins over the pipeline's budget. */
  readonly maxCredits?: number;
  readonly allowUnpriced: boolean;
  /** `--quota-used`: the user knows better than the ledger (the key may be shared). */
  readonly quotaUsed?: number;
  readonly stateDir: string;
  /** The ledger id of the API key in use (a hash; the key itself never comes here). */
  readonly ledgerKeyId?: string;
  readonly now: number;
  readonly isCached?: (instance: StepInstance) => boolean;
  /** --rows: the rows to plan. */
  readonly includeRow?: ((rowIndex: number) => boolean) | undefined;
  /** --redo: instances whose cached result is paid for again. */
  readonly isRedo?: ((instance: StepInstance) => boolean) | undefined;
  /** Validation warnings, as printed. */
  readonly warnings?: readonly string[];
  /** `--fit`: plan the whole rows that fit the quota left and the budget; defer the rest. */
  readonly fit?: boolean;
  /** `--shard`: the shard `includeRow` takes; it plans with its share of the quota and the budget. */
  readonly shard?: ShardPlan | undefined;
}

/** What is known of the requests already sent with the key (PlanInput's `quotaUsed`, and when the last was). */
export type QuotaUsage = NonNullable<PlanInput['quotaUsed']> & { readonly newest?: number | undefined };

/**
 * The ledger's count and the service's last refusal for the quota, if it still holds; hours that
 * left the window are deleted on the way (a failure to delete is harmless).
 */
async function usedFromLedger(ledger: RequestLedger, now: number) {
  const count = await ledger.countInWindow(now);
  const refusal = await ledger.refusal(now);
  const newest = await ledger.newestInWindow(now);
  await ledger.prune(now).catch(() => 0);
  return { count, source: 'ledger' as const, refusal, newest };
}

export async function preflight(expansion: Expansion, options: PreflightOptions): Promise<Plan> {
  return preflightWith(expansion, await quotaUsage(options), options);
}

/** The quota already used: --quota-used, else the ledger of the key, else unknown. */
export async function quotaUsage(
  options: Pick<PreflightOptions, 'quotaUsed' | 'ledgerKeyId' | 'stateDir' | 'now'>,
): Promise<QuotaUsage | undefined> {
  return options.quotaUsed !== undefined
    ? { count: options.quotaUsed, source: 'flag' as const }
    : options.ledgerKeyId !== undefined
      ? await usedFromLedger(new RequestLedger(options.stateDir, options.ledgerKeyId), options.now)
      : undefined;
}

/** The plan with the quota used already read (`plan --shards` reads the ledger once for every shard). */
export function preflightWith(
  expansion: Expansion,
  quotaUsed: QuotaUsage | undefined,
  options: Omit<PreflightOptions, 'quotaUsed' | 'ledgerKeyId' | 'stateDir' | 'now'>,
): Plan {
  const pipelineBudget = expansion.pipeline.maxCredits;
  const maxCredits =
    options.maxCredits !== undefined
      ? { value: options.maxCredits, source: 'flag' as const }
      : pipelineBudget !== undefined
        ? { value: pipelineBudget, source: 'pipeline' as const }
        : undefined;
  const { shard } = options;
  return buildPlan(expansion, {
    allowUnpriced: options.allowUnpriced,
    ...(maxCredits && { maxCredits }),
    ...(quotaUsed && { quotaUsed }),
    ...(options.isCached && { isCached: options.isCached }),
    includeRow: options.includeRow,
    isRedo: options.isRedo,
    ...(options.warnings && { warnings: options.warnings }),
    ...(options.fit && {
      fit: {
        order: takenRows(expansion.rowOrder(), options.includeRow),
        lastRequestAt: quotaUsed?.newest,
      },
    }),
    ...(shard && { shard: { ...shard, quotaPerShard: expansion.pipeline.api.quotaPerShard } }),
  });
}

/** The rows a run takes, in the order it takes them: by priority, then only those --rows chose. */
export function takenRows(order: Uint32Array, includeRow: ((rowIndex: number) => boolean) | undefined): Uint32Array {
  return includeRow ? order.filter((row) => includeRow(row)) : order;
}
