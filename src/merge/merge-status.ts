/**
 * The merged run's status and exit code, from its shards'. Complete only when every shard is there
 * and complete; otherwise the worst of them, in this order:
 *
 *   complete (0) < partial (1: steps failed, a rerun retries them)
 *     < stopped (4: credits, quota, budget or key; or shards missing)
 *     < interrupted (4: a shard was stopped by a signal, or never finished its manifest)
 *
 * A shard whose manifest still says `running` (killed, or uploaded before it finished) counts as
 * interrupted: a merged manifest never says `running`. Missing shards (with --allow-missing) make
 * the merge at least `stopped`, by `missing-shards`. The exit code is the merge's own: 0, 1 as a
 * run with failed steps, 4 for anything to run again (the shards resume; then merge again).
 */
import { EXIT } from '../errors.js';
import type { Manifest, ManifestHead } from '../manifest/manifest-schema.js';

export interface MergedStatus {
  readonly status: Exclude<Manifest['status'], 'running'>;
  readonly stopped_by: string | null;
  readonly exit_code: number;
}

/** How far from done a shard is: the merge is as far as the farthest. */
const RANK: Readonly<Record<Manifest['status'], number>> = {
  complete: 0,
  partial: 1,
  stopped: 2,
  interrupted: 3,
  running: 3,
};

/** stopped_by when shards are missing: the merge stopped short of the whole run. */
export const MISSING_SHARDS = 'missing-shards';

export function mergedStatus(heads: readonly ManifestHead[], missing: readonly string[]): MergedStatus {
  let worst: ManifestHead | undefined;
  for (const head of heads) if (!worst || RANK[head.status] > RANK[worst.status]) worst = head;
  if (missing.length > 0 && (!worst || RANK[worst.status] < RANK.stopped))
    return { status: 'stopped', stopped_by: MISSING_SHARDS, exit_code: EXIT.stoppedResumable };
  if (!worst || worst.status === 'complete') return { status: 'complete', stopped_by: null, exit_code: EXIT.ok };
  if (worst.status === 'partial') return { status: 'partial', stopped_by: null, exit_code: EXIT.stepsFailed };
  return {
    status: worst.status === 'running' ? 'interrupted' : worst.status,
    stopped_by: worst.stopped_by,
    exit_code: EXIT.stoppedResumable,
  };
}
