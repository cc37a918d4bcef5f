/**
 * The output folders a merge takes, from the folders it was given. Each may be:
 * - a shard folder itself (`<out>/<pipeline>/shards/2-of-4/`), or any output folder (has manifest.json);
 * - a pipeline's folder holding shards (`<out>/<pipeline>/`, with `shards/<i>-of-<n>/` in it);
 * - a `shards/` folder, an `--out` folder holding pipelines, or a downloaded artifact holding
 *   `<pipeline>/shards/<i>-of-<n>/`, or a folder of such artifacts: searched two levels down.
 *
 * A folder with shards is taken for its shards only: a manifest.json beside them is an earlier
 * merge (or an unsharded run) in a shared `--out`, not a shard. The same folder reached twice (by
 * two paths, or given and found inside another) is taken once.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { MergeRefusedError } from './merge-refused.js';
import { byShardIndex, SHARD_FOLDER } from './shard-id.js';

export interface FoundFolder {
  /** Absolute, as resolved from the argument (not through symbolic links). */
  readonly dir: string;
  /** As messages name it: relative to the working folder. */
  readonly shown: string;
}

/** How far below a given folder shard folders are looked for (artifacts/<name>/<pipeline>/). */
const SEARCH_DEPTH = 2;

export async function findOutputFolders(args: readonly string[], cwd: string): Promise<FoundFolder[]> {
  const found: FoundFolder[] = [];
  const seen = new Set<string>();
  for (const arg of args) {
    const dirs = await outputFoldersIn(path.resolve(cwd, arg), arg);
    for (const dir of dirs) {
      const real = await realpath(dir);
      if (seen.has(real)) continue;
      seen.add(real);
      found.push({ dir, shown: path.relative(cwd, dir) || '.' });
    }
  }
  return found;
}

async function outputFoldersIn(target: string, arg: string): Promise<string[]> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new MergeRefusedError(`${arg}: no such folder`);
  // A manifest given as a file stands for its folder.
  const dir = info.isFile() && path.basename(target) === 'manifest.json' ? path.dirname(target) : target;
  if (!info.isDirectory() && dir === target) throw new MergeRefusedError(`${arg}: not a folder`);
  const dirs = await explore(dir, SEARCH_DEPTH);
  if (dirs.length === 0)
    throw new MergeRefusedError(
      `${arg}: not an output folder: no manifest.json in it, and no shard folders (<pipeline>/shards/<i>-of-<n>/) under it`,
    );
  return dirs;
}

async function explore(dir: string, depth: number): Promise<string[]> {
  const shards = await shardFolders(path.join(dir, 'shards'));
  if (shards.length > 0) return shards;
  if (await hasManifest(dir)) return [dir];
  if (depth === 0) return [];
  const found: string[] = [];
  for (const child of await subfolders(dir)) found.push(...(await explore(child, depth - 1)));
  return found;
}

/** The shard folders in `<pipeline>/shards/`, by index; none when there is no such folder. */
async function shardFolders(dir: string): Promise<string[]> {
  const names = (await subfolderNames(dir)).filter((name) => SHARD_FOLDER.test(name)).sort(byShardIndex);
  const found: string[] = [];
  for (const name of names) if (await hasManifest(path.join(dir, name))) found.push(path.join(dir, name));
  return found;
}

async function hasManifest(dir: string): Promise<boolean> {
  const info = await stat(path.join(dir, 'manifest.json')).catch(() => undefined);
  return info?.isFile() === true;
}

async function subfolderNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

async function subfolders(dir: string): Promise<string[]> {
  // Shard folders first, by index: `shards/` given itself.
  const names = await subfolderNames(dir);
  const shards = names.filter((name) => SHARD_FOLDER.test(name)).sort(byShardIndex);
  const others = names.filter((name) => !SHARD_FOLDER.test(name));
  return [...shards, ...others].map((name) => path.join(dir, name));
}
