/** The plan as a person reads it in a terminal or a cron mail. */
import { textTable } from '../text/text-table.js';
import { count, formatNumber } from './decide.js';
import type { FitPlan, Plan, QuotaState, ShardPlan, StepLine } from './plan-model.js';

export function planText(plan: Plan): string {
  const out: string[] = [];
  const skipped = plan.skipped.when + plan.skipped.upstream;
  out.push(`Plan for ${plan.pipeline} (${plan.file})`);
  const rows = rowsText(plan);
  out.push(
    `${rows}, ${count(plan.instances, 'step instance')} to run${skipped > 0 ? `, ${formatNumber(skipped)} skipped by when:` : ''}${plan.cached.instances > 0 ? `, ${formatNumber(plan.cached.instances)} cached from earlier runs` : ''}`,
  );
  out.push('');

  const estimate = (line: StepLine) => (line.source === 'published' ? '' : line.source === 'unpriced' ? '?' : '~');
  const table: string[][] = [['step', 'operation', 'model', 'count', 'credits each', 'credits']];
  for (const line of plan.lines) {
    const model = line.priceKey === line.operation ? '-' : line.priceKey;
    const each =
      line.unitCredits === null
        ? 'no price'
        : `${estimate(line)}${formatNumber(line.unitCredits)}${line.units !== line.instances ? ` x ${formatNumber(line.units / line.instances)}` : ''}`;
    const credits = line.unitCredits === null ? '?' : `${estimate(line)}${formatNumber(line.credits)}`;
    const cached = line.cached > 0 ? ` (${formatNumber(line.cached)} cached)` : '';
    table.push([line.stepId, line.operation, model, `${formatNumber(line.instances)}${cached}`, each, credits]);
  }
  const approx = plan.credits.estimated ? '~' : '';
  const bound = plan.credits.lowerBound ? 'at least ' : '';
  table.push(['total', '', '', '', '', `${bound}${approx}${formatNumber(plan.credits.total)}`]);
  out.push(textTable(table, [false, false, false, true, true, true]));
  out.push('');

  const models = [...plan.credits.byModel].map(([model, credits]) => `${model} ${formatNumber(credits)}`).join(', ');
  out.push(`  by model:  ${models || 'nothing'}`);
  out.push(`  by row:    ${rowSummary(plan)}`);
  const { submits, pollsExpected, pollsWorst } = plan.requests;
  const polls =
    plan.requests.videos > 0
      ? ` + ~${formatNumber(pollsExpected)} video status polls = ${formatNumber(submits + pollsExpected)} (worst case ${formatNumber(submits + pollsWorst)})`
      : '';
  out.push(`  requests:  ${count(submits, 'submit')}${polls}`);
  out.push(`  quota:     ${quotaLine(plan)}`);
  out.push(`  budget:    ${budgetLine(plan)}`);
  if (plan.fit) out.push(`  fit:       ${fitLine(plan.fit)}`);
  const { redo } = plan;
  if (redo.instances > 0)
    out.push(
      `  redo:      ${count(redo.instances, 'step')} in ${count(redo.rows, 'row')}, ${plan.credits.estimated ? '~' : ''}${count(redo.credits, 'credit')} (cached results paid again)`,
    );
  if (plan.cached.instances > 0) {
    out.push(
      `  cached:    ${formatNumber(plan.cached.instances)} step instances, ${formatNumber(plan.cached.creditsSaved)} credits saved`,
      `  to send:   ${count(plan.rowsToSend.length, 'row')} changed or new, ${count(plan.requests.submits, 'step')}, ${count(plan.credits.total, 'credit')}; ${count(plan.cached.rows, 'row')} unchanged (cached, ${formatNumber(plan.cached.creditsSaved)} credits saved)`,
    );
    if (plan.rowsToSend.length > 0) out.push(`  changed:   ${firstFew(plan.rowsToSend)}`);
  }

  if (plan.warnings.length > 0) {
    out.push('', 'warnings:');
    for (const warning of plan.warnings) out.push(`  - ${warning}`);
  }
  out.push('');
  if (plan.refused) {
    out.push('REFUSED, nothing was sent:');
    for (const reason of plan.reasons) out.push(`  - ${reason.replaceAll('\n', '\n    ')}`);
  } else if (plan.fit && plan.fit.rowsTonight < plan.fit.rowsWithWork) {
    out.push(
      `OK with --fit: ${count(plan.fit.rowsTonight, 'whole row')} run now, the rest is deferred (exit 4; run again to go on). Nothing was sent.`,
    );
  } else if (plan.shard) {
    out.push(
      `OK: shard ${shardText(plan.shard)} fits its share of the budget and of the quota left today. Nothing was sent.`,
    );
  } else {
    out.push('OK: the plan fits the budget and the quota left today. Nothing was sent.');
  }
  return `${out.join('\n')}\n`;
}

/** `fits tonight: 183 of 500 rows; 317 deferred (quota); the rest needs 2 more windows; ...`. */
function fitLine(fit: FitPlan): string {
  const parts = [`fits tonight: ${formatNumber(fit.rowsTonight)} of ${count(fit.rowsWithWork, 'row')} to send`];
  const deferred = fit.deferred.quota + fit.deferred.budget;
  if (deferred > 0) {
    const why = [
      fit.deferred.quota > 0 ? `${formatNumber(fit.deferred.quota)} for the quota` : '',
      fit.deferred.budget > 0 ? `${formatNumber(fit.deferred.budget)} for the budget` : '',
    ].filter(Boolean);
    parts.push(`${formatNumber(deferred)} deferred (${why.join(', ')}): ${firstFew(fit.deferredRows)}`);
  }
  if (fit.windowsMore > 0) parts.push(`the rest needs ${count(fit.windowsMore, 'more window')} (24 h each)`);
  if (fit.neverFit.length > 0)
    parts.push(
      `${count(fit.neverFit.length, 'row')} need more than a whole day's quota or the budget and never fit: ${firstFew(fit.neverFit)}`,
    );
  if (fit.freeUp) parts.push(`${count(fit.freeUp.requests, 'request')} free up by ${clock(fit.freeUp.by)} UTC`);
  return parts.join('; ');
}

function rowSummary(plan: Plan): string {
  let min: [string, number] | undefined;
  let max: [string, number] | undefined;
  let sum = 0;
  for (const entry of plan.credits.byRow) {
    if (!min || entry[1] < min[1]) min = entry;
    if (!max || entry[1] > max[1]) max = entry;
    sum += entry[1];
  }
  if (!min || !max) return 'no rows';
  const rows = plan.credits.byRow.size;
  if (min[1] === max[1]) return `${count(rows, 'row')}, ${formatNumber(min[1])} credits each`;
  return `${count(rows, 'row')}: ${formatNumber(min[1])} to ${formatNumber(max[1])} credits (least: ${min[0]}, most: ${max[0]}), ${formatNumber(Math.round(sum / rows))} on average`;
}

function quotaLine(plan: Plan): string {
  if (plan.quota.limit === null) return keyQuotaText(plan.quota);
  return `${keyQuotaText(plan.quota)}${quotaShareText(plan)}`;
}

/** The key's quota: its limit, what is used and what is left. */
export function keyQuotaText(quota: QuotaState): string {
  if (quota.limit === null) return `${quota.plan} plan, daily limit unknown`;
  const used =
    quota.usedSource === 'unknown'
      ? 'used today unknown'
      : `${formatNumber(quota.used24h ?? 0)} used in the last 24 h (${quota.usedSource === 'flag' ? '--quota-used' : 'local ledger'})`;
  const refused =
    quota.refusedAt === null ? '' : ` (the service refused for the quota at ${clock(quota.refusedAt)} UTC)`;
  return `${quota.plan} plan, ${formatNumber(quota.limit)} requests per 24 h; ${used}; ${formatNumber(quota.remaining ?? 0)} left${refused}`;
}

/** `; this shard's share: 250 (1/4, --shard 2/4)`. */
function quotaShareText(plan: Plan): string {
  const { share } = plan.quota;
  if (!share || !plan.shard) return '';
  const requests = formatNumber(share.requests ?? 0);
  return share.source === 'split'
    ? `; this shard's share: ${requests} (1/${plan.shard.count}, --shard ${shardText(plan.shard)})`
    : `; this shard's quota: ${requests} (api.quota_per_shard, --shard ${shardText(plan.shard)})`;
}

function budgetLine(plan: Plan): string {
  const { maxCredits, source } = plan.budget;
  if (maxCredits === undefined) return 'none set';
  const approx = plan.credits.estimated ? '~' : '';
  const share = maxCredits > 0 ? ` (${Math.round((plan.credits.total / maxCredits) * 100)}%)` : '';
  const from = source === 'flag' ? '--max-credits' : 'budget.max_credits';
  const whose = plan.budget.split
    ? `this shard's share: 1/${plan.budget.split.count} of ${formatNumber(plan.budget.split.total)} from ${from}`
    : plan.shard
      ? `from ${from}, this shard's own budget`
      : `from ${from}`;
  return `${approx}${formatNumber(plan.credits.total)} of ${formatNumber(maxCredits)} credits${share}, ${whose}${plan.shard ? ` (--shard ${shardText(plan.shard)})` : ''}`;
}

/** `2/4`. */
function shardText(shard: ShardPlan): string {
  return `${shard.index}/${shard.count}`;
}

/** `12 rows`, `3 of 12 rows (--rows)`, `3 of 12 rows (shard 2/4)`. */
function rowsText(plan: Plan): string {
  const { selection, shard } = plan;
  if (!selection) return count(plan.rows, 'row');
  const chosen = `${formatNumber(selection.rows)} of ${count(selection.ofRows, 'row')}`;
  if (!shard) return `${chosen} (--rows)`;
  const of = `shard ${shardText(shard)}`;
  return selection.rows === shard.rows
    ? `${chosen} (${of})`
    : `${chosen} (--rows; ${of} has ${formatNumber(shard.rows)})`;
}

/** HH:MM in UTC. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** The first few row keys, then how many more. */
function firstFew(keys: readonly string[], shown = 5): string {
  const more = keys.length - shown;
  return `${keys.slice(0, shown).join(', ')}${more > 0 ? `, and ${formatNumber(more)} more` : ''}`;
}
