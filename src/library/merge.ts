/** The library's `merge()`: the object `assetline merge --json` prints. */
import path from 'node:path';
import { mergeJson, type MergeJson } from '../merge/merge-json.js';
import { mergeShards } from '../merge/merge-shards.js';

export interface MergeOptions {
  /** The folder the merged `<pipeline>/` folder is written into. Required. */
  readonly out: string;
  /**
   * Merge the shards that are there when some are missing: the result says `status: "stopped"`,
   * `stopped_by: "missing-shards"`, `exit_code` 4, and lists them in `missing_shards`.
   * @default false
   */
  readonly allowMissing?: boolean;
  /**
   * The folder relative paths (`dirs`, `out`) are resolved against.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /** Aborting it stops the merge between two rows; the earlier merge's manifest stays as it was. */
  readonly signal?: AbortSignal;
}

/**
 * Combines the output folders of the shards of one run (`run --shard i/n`) into
 * `<out>/<pipeline>/`: the files linked (or copied), one manifest with the summed totals and each
 * row's shard, assets.csv and report.html. Shards that stopped or failed are not an error: the
 * result's `status` and `exit_code` say so (0 complete, 1 steps failed, 4 to run again).
 *
 * @param dirs Shard folders, or folders holding them (an `--out` folder, a downloaded artifact).
 * @throws {MergeRefusedError} the folders are not the shards of one run: different pipelines or
 *   versions, different shard counts, one row with two results, missing shards (without
 *   `allowMissing`), a path leading outside its folder. Nothing is written then.
 */
export async function merge(dirs: string | readonly string[], options: MergeOptions): Promise<MergeJson> {
  const cwd = options.cwd ?? process.cwd();
  const merged = await mergeShards(typeof dirs === 'string' ? [dirs] : dirs, {
    out: path.resolve(cwd, options.out),
    cwd,
    allowMissing: options.allowMissing ?? false,
    signal: options.signal,
  });
  return mergeJson(merged);
}
