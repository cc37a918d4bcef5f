/**
 * The verdict: refuse when the credits pass the budget, when the expected requests pass what is
 * left of the quota, or when a model has no price (unless allowed). Warn when only the worst case
 * passes the quota, when prices are estimates, and when nothing limits the spend. Every reason
 * says the numbers.
 */
import type { Plan, QuotaState } from './plan-model.js';
import { requestRoom } from './shard-share.js';

type Totals = Omit<Plan, 'refused' | 'reasons' | 'warnings'>;

export interface Decision {
  readonly reasons: string[];
  readonly warnings: string[];
}

/** What to do instead of splitting the sheet by hand. */
const FIT_HINT = 'run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)';

export const formatNumber = (value: number): string => value.toLocaleString('en-US');

/** "1 submit", "2 submits". */
export const count = (value: number, word: string): string => `${formatNumber(value)} ${word}${value === 1 ? '' : 's'}`;

export function decide(plan: Totals, options: { allowUnpriced: boolean; timeoutSeconds: number }): Decision {
  const reasons: string[] = [];
  const warnings: string[] = [];
  const { credits, requests, quota, budget } = plan;

  if (plan.unpriced.length > 0) {
    const models = [...new Set(plan.unpriced.map((group) => group.model))];
    const count = `${formatNumber(credits.unpriced)} step instance${credits.unpriced === 1 ? '' : 's'}`;
    const have = models.length === 1 ? 'has' : 'have';
    if (options.allowUnpriced) {
      warnings.push(
        `the credit total is a lower bound: ${count} of ${models.join(' and ')} have no price and count as 0 (--allow-unpriced)`,
      );
    } else {
      reasons.push(
        `${count} use ${models.join(' and ')}, which ${have} no published price; add your price to the pipeline, or run with --allow-unpriced to plan with a lower bound:\n\n${pricingYaml(plan)}`,
      );
    }
  }

  const atLeast = credits.lowerBound ? 'at least ' : '';
  if (budget.maxCredits === undefined) {
    warnings.push(
      'no budget: set budget.max_credits in the pipeline or --max-credits so an unattended run cannot overspend',
    );
  } else if (credits.total > budget.maxCredits) {
    const from = budget.source === 'flag' ? '--max-credits' : 'budget.max_credits';
    const over = budget.split
      ? `over this shard's budget of ${formatNumber(budget.maxCredits)} (1/${budget.split.count} of ${from} ${formatNumber(budget.split.total)})`
      : `over the budget of ${formatNumber(budget.maxCredits)} (${from})`;
    reasons.push(`needs ${atLeast}${formatNumber(credits.total)} credits, ${over}; ${FIT_HINT}`);
  }

  if (credits.estimated) {
    const sources = new Map<string, string>();
    for (const line of plan.lines) {
      if (line.unitCredits === null || line.source === 'published' || line.source === 'unpriced') continue;
      const how =
        line.source === 'default'
          ? `assetline's default of ${formatNumber(line.unitCredits)} (set pricing.${line.priceKey} to your price)`
          : `${formatNumber(line.unitCredits)} from pricing.${line.priceKey}`;
      sources.set(`${line.priceKey}\u0000${line.unitCredits}`, `${line.priceKey} at ${how}`);
    }
    warnings.push(
      `the total is an estimate: ${formatNumber(credits.estimatedCredits)} of its ${formatNumber(credits.total)} credits use prices the API reference does not publish: ${[...sources.values()].join('; ')}`,
    );
  }

  const room = requestRoom(quota);
  if (quota.limit !== null && quota.remaining !== null && room !== null) {
    const left = leftText(quota, room, plan.shard?.count ?? 1);
    const expected = requests.submits + requests.pollsExpected;
    const worst = requests.submits + requests.pollsWorst;
    const polls = (polled: number, approx: boolean) =>
      requests.videos > 0
        ? ` (${count(requests.submits, 'submit')} + ${approx ? '~' : ''}${count(polled, 'poll')})`
        : '';
    if (expected > room) {
      reasons.push(
        `needs ${formatNumber(expected)} requests${polls(requests.pollsExpected, true)}, ${left}; ${FIT_HINT}`,
      );
    } else if (worst > room) {
      warnings.push(
        `in the worst case, every video job polled until its ${minutes(options.timeoutSeconds)} timeout, needs ${formatNumber(worst)} requests${polls(requests.pollsWorst, false)}, ${left}`,
      );
    }
    if (quota.usedSource === 'unknown') {
      warnings.push(
        'requests already sent today are unknown (set ASSETLINE_API_KEY to read the ledger, or pass --quota-used N); assumed 0',
      );
    }
  }
  return { reasons, warnings };
}

/** `1,000 left of 1,000 today`, or a shard's part of it. */
function leftText(quota: QuotaState, room: number, shards: number): string {
  const key = `${formatNumber(quota.remaining ?? 0)} left of ${formatNumber(quota.limit ?? 0)} today`;
  if (!quota.share) return key;
  return quota.share.source === 'split'
    ? `this shard's share is ${formatNumber(room)} (1/${shards} of ${key})`
    : `this shard may send ${formatNumber(room)} (api.quota_per_shard; the key has ${key})`;
}

/** The exact `pricing:` block that would price every unpriced instance. */
export function pricingYaml(plan: Pick<Plan, 'unpriced'>): string {
  const byModel = new Map<string, string[]>();
  for (const group of plan.unpriced) byModel.set(group.model, [...(byModel.get(group.model) ?? []), group.tier]);
  const lines = ['pricing:'];
  for (const [model, tiers] of byModel) {
    lines.push(
      `  ${model}:   # credits per ${model.endsWith('-edit') ? 'edit' : 'image'}, by "<resolution>-<quality>"`,
    );
    for (const tier of [...new Set(tiers)].sort()) lines.push(`    ${tier}: <credits>`);
  }
  return lines.join('\n');
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60}-minute` : `${seconds}-second`;
}
