/** `plan --shards n` as a person reads it: one line a shard, the totals, and how even they are. */
import { textTable } from '../text/text-table.js';
import { count, formatNumber } from './decide.js';
import { keyQuotaText } from './plan-text.js';
import type { ShardLine, ShardsPlan, Spread } from './shards-plan.js';

export function shardsText(plan: ShardsPlan): string {
  const n = plan.count;
  const out: string[] = [];
  out.push(`Plan for ${plan.pipeline} (${plan.file}) in ${count(n, 'shard')} (--shards ${n})`);
  out.push(
    `${count(plan.ofRows, 'row')}, each in the shard its key hashes to; shard i runs with \`assetline run --shard i/${n}\` into <out>/${plan.pipeline}/shards/i-of-${n}/`,
  );
  out.push('');

  const approx = plan.shards.some((shard) => shard.estimated) ? '~' : '';
  const withFit = plan.shards.some((shard) => shard.deferredRows !== undefined);
  const header = ['shard', 'rows', 'steps', 'cached', 'credits', 'requests', 'quota share', 'budget share'];
  const table: string[][] = [[...header, ...(withFit ? ['deferred'] : []), 'fits']];
  for (const shard of plan.shards) {
    table.push([
      `${shard.index}/${n}`,
      formatNumber(shard.rows),
      formatNumber(shard.steps),
      formatNumber(shard.cachedSteps),
      `${shard.lowerBound ? '>=' : ''}${approx}${formatNumber(shard.credits)}`,
      formatNumber(shard.requests),
      shard.quotaShare === null ? '-' : formatNumber(shard.quotaShare),
      shard.budgetShare === undefined ? '-' : formatNumber(shard.budgetShare),
      ...(withFit ? [formatNumber(shard.deferredRows ?? 0)] : []),
      fits(shard),
    ]);
  }
  const { totals } = plan;
  table.push([
    'total',
    formatNumber(totals.rows),
    formatNumber(totals.steps),
    formatNumber(plan.shards.reduce((sum, shard) => sum + shard.cachedSteps, 0)),
    `${approx}${formatNumber(totals.credits)}`,
    formatNumber(totals.requests),
    totals.quotaShares === null ? '-' : formatNumber(totals.quotaShares),
    totals.budgetShares === undefined ? '-' : formatNumber(totals.budgetShares),
    ...(withFit ? [formatNumber(plan.shards.reduce((sum, shard) => sum + (shard.deferredRows ?? 0), 0))] : []),
    '',
  ]);
  out.push(textTable(table, [false, true, true, true, true, true, true, true, true, false]));
  out.push('');

  const { evenness } = plan;
  out.push(
    `  evenness:  rows ${spreadText(evenness.rows)}; credits ${spreadText(evenness.credits)}; requests ${spreadText(evenness.requests)}`,
  );
  out.push(`  quota:     ${keyQuotaText(plan.quota)}${quotaShares(plan)}`);
  out.push(`  budget:    ${budgetText(plan)}`);

  if (plan.warnings.length > 0 || plan.shardsWithWarnings.length > 0) {
    out.push('', 'warnings:');
    for (const warning of plan.warnings) out.push(`  - ${warning}`);
    const own = plan.shardsWithWarnings;
    const example = plan.shards.find((shard) => shard.index === own[0]);
    const first = example?.warnings.find((warning) => !plan.warnings.includes(warning));
    if (example && first !== undefined) {
      const which =
        own.length === n
          ? 'every shard has'
          : `${own.length === 1 ? 'shard' : 'shards'} ${firstFew(own.map((index) => `${index}/${n}`))} ${own.length === 1 ? 'has' : 'have'}`;
      out.push(
        `  - ${which} warnings of ${own.length > 1 && own.length < n ? 'their' : 'its'} own (\`assetline plan --shard i/${n}\` shows them), such as shard ${example.index}/${n}'s: ${first}`,
      );
    }
  }
  out.push('');
  const refused = plan.shards.filter((shard) => shard.refused);
  if (refused.length > 0) {
    out.push(`REFUSED: ${formatNumber(refused.length)} of ${count(n, 'shard')} would be refused, nothing was sent:`);
    for (const shard of refused)
      for (const reason of shard.reasons)
        out.push(`  - shard ${shard.index}/${n}: ${reason.replaceAll('\n', '\n    ')}`);
  } else {
    out.push(`OK: every shard fits its share of the budget and of the quota left today. Nothing was sent.`);
  }
  return `${out.join('\n')}\n`;
}

/** The first few, then how many more. */
function firstFew(items: readonly string[], shown = 5): string {
  const more = items.length - shown;
  return `${items.slice(0, shown).join(', ')}${more > 0 ? `, and ${formatNumber(more)} more` : ''}`;
}

/** `yes`, or `no (quota, budget)`, or `no` for another reason (no price: see the reasons). */
function fits(shard: ShardLine): string {
  if (!shard.refused) return 'yes';
  const over = [!shard.fitsQuota && 'quota', !shard.fitsBudget && 'budget'].filter(Boolean);
  return over.length > 0 ? `no (${over.join(', ')})` : 'no';
}

/** `2 to 4 (max/mean 1.33)`. */
function spreadText(spread: Spread): string {
  const ratio = spread.maxOverMean === null ? '' : ` (max/mean ${spread.maxOverMean.toFixed(2)})`;
  return spread.min === spread.max
    ? `${formatNumber(spread.min)} each`
    : `${formatNumber(spread.min)} to ${formatNumber(spread.max)}${ratio}`;
}

function quotaShares(plan: ShardsPlan): string {
  const share = plan.quota.share;
  const first = plan.shards[0];
  if (!share || first?.quotaShare === null || first === undefined) return '';
  return share.source === 'split'
    ? `; each shard's share: ${formatNumber(first.quotaShare)} (1/${plan.count})`
    : `; each shard's quota: ${formatNumber(first.quotaShare)} (api.quota_per_shard)`;
}

function budgetText(plan: ShardsPlan): string {
  const { budget } = plan;
  if (budget.maxCredits === undefined) return 'none set';
  if (budget.split)
    return `${formatNumber(budget.split.total)} credits from budget.max_credits; each shard's share: ${formatNumber(budget.maxCredits)} (1/${budget.split.count})`;
  const from = budget.source === 'flag' ? '--max-credits' : 'budget.max_credits';
  return `${formatNumber(budget.maxCredits)} credits for each shard, from ${from}`;
}
