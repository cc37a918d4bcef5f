/**
 * The merged manifest's head: the shards' totals summed, its status the worst of theirs, and
 * nothing that depends on when or where the merge ran but `merged_at`. Its fields are always in
 * the same order, so two merges of the same shards are the same bytes but for that one field.
 *
 * - Credits planned and saved by the cache, and every request count: the sum over the shard runs.
 *   Credits used, paid and lost, the tables by model, step and row, and the step counts: tallied
 *   from the merged rows, each row once (the same as the sum when no row is in two shards).
 * - The quota is not a sum: the shards share one key, and each saw its own ledger. The merged
 *   manifest keeps the tightest any shard saw: the most used, the least remaining, the first 429.
 * - started_at is the earliest shard's start, finished_at the latest shard's end (null while a
 *   shard has none), duration_ms the span between.
 * - run_id is `merge-` and a digest of the shard runs merged and the shards missing.
 */
import { createHash } from 'node:crypto';
import type { ManifestHead, MergedFrom } from '../manifest/manifest-schema.js';
import type { ShardSet } from './check-shards.js';
import type { RowScan } from './scan-rows.js';
import { mergedStatus } from './merge-status.js';

export interface HeadInputs {
  readonly set: ShardSet;
  readonly scan: RowScan;
  /** Each shard merged, as merged_from lists it (its folder relative to the merged one). */
  readonly mergedFrom: readonly MergedFrom[];
  readonly mergedAt: Date;
}

export function mergedHead({ set, scan, mergedFrom, mergedAt }: HeadInputs): ManifestHead {
  const heads = set.shards.map((input) => input.head);
  const first = heads[0] as ManifestHead;
  const status = mergedStatus(heads, set.missing);
  const started = Math.min(...heads.map((head) => Date.parse(head.started_at)));
  const ends = heads.map((head) => (head.finished_at === null ? Number.NaN : Date.parse(head.finished_at)));
  const finished = ends.some(Number.isNaN) ? undefined : Math.max(...ends);
  const sum = (value: (head: ManifestHead) => number) => heads.reduce((total, head) => total + value(head), 0);
  const sumIfAll = (value: (head: ManifestHead) => number | undefined) =>
    heads.every((head) => value(head) !== undefined) ? sum((head) => value(head) ?? 0) : undefined;
  const { credits } = scan;
  const everyPaid = heads.every((head) => head.totals.credits.paid_total !== undefined);
  const requests = (head: ManifestHead) => head.totals.requests;
  const plannedSubmits = sumIfAll((head) => requests(head).planned_submits);
  const plannedPolls = sumIfAll((head) => requests(head).planned_polls);
  return {
    schema_version: 1,
    pipeline: set.pipeline,
    pipeline_file: first.pipeline_file,
    run_id: mergeRunId(set),
    status: status.status,
    stopped_by: status.stopped_by,
    exit_code: status.exit_code,
    started_at: new Date(started).toISOString(),
    finished_at: finished === undefined ? null : new Date(finished).toISOString(),
    duration_ms: finished === undefined ? null : finished - started,
    sandbox: first.sandbox,
    base_url: first.base_url,
    ...(set.version !== undefined && { pipeline_version: set.version }),
    merged_at: mergedAt.toISOString(),
    merged_from: [...mergedFrom],
    ...(set.missing.length > 0 && { missing_shards: [...set.missing] }),
    totals: {
      credits: {
        planned: sum((head) => head.totals.credits.planned),
        used: credits.used,
        estimated: heads.some((head) => head.totals.credits.estimated),
        saved_by_cache: sum((head) => head.totals.credits.saved_by_cache),
        ...(everyPaid && { paid_total: credits.paid_total, lost: credits.lost }),
        by_model: credits.by_model,
        by_step: credits.by_step,
        by_row: credits.by_row,
      },
      requests: {
        sent: sum((head) => requests(head).sent),
        planned: sum((head) => requests(head).planned),
        ...(plannedSubmits !== undefined && { planned_submits: plannedSubmits }),
        ...(plannedPolls !== undefined && { planned_polls: plannedPolls }),
        submits: sum((head) => requests(head).submits),
        polls: sum((head) => requests(head).polls),
        other: sum((head) => requests(head).other),
        retries: sum((head) => requests(head).retries),
        ambiguous: sum((head) => requests(head).ambiguous),
      },
      quota: tightestQuota(heads),
      steps: { ...scan.steps },
    },
  };
}

function tightestQuota(heads: readonly ManifestHead[]): ManifestHead['totals']['quota'] {
  const quotas = heads.map((head) => head.totals.quota);
  const first = quotas[0] as ManifestHead['totals']['quota'];
  const known = (values: readonly (number | null)[]) => values.filter((value): value is number => value !== null);
  const used = known(quotas.map((quota) => quota.used_24h));
  const remaining = known(quotas.map((quota) => quota.remaining));
  const refusals = quotas.flatMap((quota) => (quota.refused_at ? [quota.refused_at] : [])).sort();
  return {
    plan: first.plan,
    limit: first.limit,
    used_24h: used.length > 0 ? Math.max(...used) : null,
    remaining: remaining.length > 0 ? Math.min(...remaining) : null,
    refused_at: refusals[0] ?? null,
  };
}

/** The same for the same shard runs and the same shards missing, whenever and wherever merged. */
function mergeRunId(set: ShardSet): string {
  const runs = set.shards.map((input) => [input.label, input.head.run_id]);
  const digest = createHash('sha256')
    .update(JSON.stringify([set.pipeline, runs, set.missing]))
    .digest('hex');
  return `merge-${digest.slice(0, 12)}`;
}
