/**
 * `merge --json`: what the merge made, as one object for scripts (and the library's `merge()`):
 * the merged run's status and exit code, where its files are, the shards merged and missing, and
 * the summed figures, in the manifest's names.
 */
import { creditFigures } from '../report/report-json.js';
import type { MergedShards } from './merge-shards.js';

export function mergeJson(merged: MergedShards) {
  const { summary } = merged;
  const { manifest } = summary;
  return {
    pipeline: manifest.pipeline,
    run_id: manifest.run_id,
    status: manifest.status,
    stopped_by: manifest.stopped_by,
    exit_code: manifest.exit_code,
    folder: merged.folder,
    manifest: merged.manifestFile,
    assets: merged.assetsFile,
    report: merged.reportFile,
    merged_from: manifest.merged_from ?? [],
    missing_shards: manifest.missing_shards ?? [],
    rows: summary.rows,
    steps: summary.counts,
    credits: creditFigures(summary.credits),
    requests: summary.requests,
    /** How the shards' files were put in the merged folder; bytes of those linked or copied. */
    files: { ...merged.files },
    notes: merged.notes,
  };
}

export type MergeJson = ReturnType<typeof mergeJson>;
