/**
 * Where a run writes: out/<pipeline>/ (one shard's run: out/<pipeline>/shards/<i>-of-<n>/) with
 * the manifest, every run's manifest in runs/, the journal, the lock, and the assets at
 * <row folder>/<step id>.<ext> (-2, -3 for further images). A result replaced by a redo (--redo)
 * is kept under runs/<id of the run that saved it>/, at the same relative path. Row folders come
 * from spreadsheet data made safe; every path is checked to stay inside.
 */
import path from 'node:path';
import { safeSegment } from '../paths/safe-segment.js';
import { type Shard, shardFolder } from '../select/shard.js';

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'video/mp4': 'mp4',
};

export function extensionOf(mediaType: string): string {
  return EXTENSIONS[mediaType] ?? 'bin';
}

/**
 * The folder a run writes its pipeline's folder into, and that `plan` reads: `--out`, else the
 * pipeline's `outputs.dir` (relative to the pipeline file), else `out/` in the working folder.
 */
export function outputRoot(
  cwd: string,
  out: string | undefined,
  pipeline: { readonly dir: string; readonly outputsDir?: string | undefined },
): string {
  if (out) return path.resolve(cwd, out);
  return pipeline.outputsDir ? path.resolve(pipeline.dir, pipeline.outputsDir) : path.resolve(cwd, 'out');
}

export class OutputLayout {
  readonly dir: string;

  /**
   * `shard`: the run takes one shard (`--shard i/n`) and keeps to a folder of its own, with its own
   * journal, lock, manifest and assets, so the n shards can run at once into one `--out`, or each on
   * its own machine into the same relative place (for `assetline merge` to bring together).
   */
  constructor(outRoot: string, pipelineName: string, shard?: Shard) {
    const pipelineDir = path.resolve(outRoot, pipelineName);
    this.dir = shard ? path.join(pipelineDir, 'shards', shardFolder(shard)) : pipelineDir;
  }

  get manifest(): string {
    return path.join(this.dir, 'manifest.json');
  }

  get journal(): string {
    return path.join(this.dir, 'journal.jsonl');
  }

  get lock(): string {
    return path.join(this.dir, '.lock');
  }

  runManifest(runId: string): string {
    return path.join(this.dir, 'runs', `${runId}.json`);
  }

  /**
   * Where a file replaced by a redo is kept: under the folder of the run that saved it (`earlier`
   * for files saved before runs were recorded with them), at the path it had.
   */
  kept(runId: string | undefined, relative: string): string {
    return this.inside(path.join(this.dir, 'runs', safeSegment(runId ?? 'earlier'), relative));
  }

  /** The asset of output `index` (0-based) of a step in a row, without its extension. */
  assetBase(rowFolder: string, stepId: string, index: number): string {
    const name = index === 0 ? stepId : `${stepId}-${index + 1}`;
    return this.inside(path.join(this.dir, rowFolder, name));
  }

  /** A path relative to the pipeline's output folder, as the manifest writes it. */
  relative(file: string): string {
    return path.relative(this.dir, file).split(path.sep).join('/');
  }

  absolute(relative: string): string {
    return this.inside(path.join(this.dir, relative));
  }

  /** Refuse any path outside the output folder (row keys are made safe; this is the last guard). */
  inside(file: string): string {
    const resolved = path.resolve(file);
    if (resolved !== this.dir && !resolved.startsWith(`${this.dir}${path.sep}`)) {
      throw new Error(`refusing to write outside the output folder: ${resolved}`);
    }
    return resolved;
  }
}
