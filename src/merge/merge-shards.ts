/**
 * `assetline merge`: the output folders of the shards of one run combined into one,
 * `<out>/<pipeline>/`, laid out as a run lays it out: the assets at the paths the manifests give,
 * one manifest.json with the summed totals and each row's shard, assets.csv and report.html.
 *
 * Everything that can refuse the merge is checked first, reading only: the folders (find-outputs),
 * their heads (check-shards), their rows and files (scan-rows). Then, holding the merged folder's
 * lock, one more pass over the rows writes the manifest and puts each row's files in place as it
 * goes (place-file); the manifest replaces the earlier one only once every file is in place, so a
 * merge that fails half-way leaves the earlier merge as it was. assets.csv and report.html are
 * made from the manifest written, as a run makes them.
 */
import { lstatSync } from 'node:fs';
import { mkdir, realpath, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { manifestTextOf, rowLine } from '../manifest/manifest-json.js';
import type { ManifestHead, MergedFrom } from '../manifest/manifest-schema.js';
import { type RunSummary, SummaryBuilder } from '../manifest/manifest-summary.js';
import { writeAtomically } from '../manifest/manifest-writer.js';
import { readManifestHead } from '../manifest/read-manifest.js';
import { writeSheetCsv } from '../report/assets-csv.js';
import { writeReportHtml } from '../report/run-report.js';
import { OutputLayout } from '../run/output-layout.js';
import { lockHolder, RunLock } from '../run/run-lock.js';
import { checkShards, type ShardSet } from './check-shards.js';
import { findOutputFolders } from './find-outputs.js';
import { mergedHead } from './merge-head.js';
import { MergeRefusedError } from './merge-refused.js';
import { mergeNotes } from './merge-notes.js';
import { type Placement, placeFile } from './place-file.js';
import { fileIn, rowFiles } from './row-files.js';
import { type RowScan, scanRows } from './scan-rows.js';
import { openShard, type ShardInput } from './shard-input.js';
import { readShardSheets } from './shard-sheets.js';

export interface MergeShardsOptions {
  /** The folder the merged `<pipeline>/` folder is written into (absolute). */
  readonly out: string;
  readonly cwd: string;
  readonly allowMissing: boolean;
  /** When the merge is (`merged_at`). */
  readonly now?: (() => Date) | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface FilesPlaced {
  linked: number;
  copied: number;
  unchanged: number;
  bytes: number;
}

export interface MergedShards {
  /** `<out>/<pipeline>/`. */
  readonly folder: string;
  readonly manifestFile: string;
  readonly assetsFile: string;
  readonly reportFile: string;
  readonly summary: RunSummary<ManifestHead>;
  readonly files: FilesPlaced;
  /** Where the figures come from and what is not there, for the reader. */
  readonly notes: readonly string[];
}

/** How many of a row's files are put in place at once. */
const FILES_AT_ONCE = 8;

export async function mergeShards(dirs: readonly string[], options: MergeShardsOptions): Promise<MergedShards> {
  const found = await findOutputFolders(dirs, options.cwd);
  const inputs: ShardInput[] = [];
  for (const folder of found) inputs.push(await openShard(folder));
  const set = checkShards(inputs, options.allowMissing);
  for (const input of set.shards) await notRunningHere(input);
  const layout = new OutputLayout(options.out, set.pipeline);
  await checkTarget(layout, inputs, options.cwd);
  const scan = await scanRows(set, options.signal);
  const sheet = await readShardSheets(set, scan);
  const mergedFrom: MergedFrom[] = set.shards.map((input) => ({
    shard: input.label,
    run_id: input.head.run_id,
    status: input.head.status,
    exit_code: input.head.exit_code,
    rows: scan.byShard.get(input.label)?.rows ?? 0,
    dir: path.relative(layout.dir, input.dir).split(path.sep).join('/'),
  }));
  const head = mergedHead({ set, scan, mergedFrom, mergedAt: (options.now ?? (() => new Date()))() });
  const notes = mergeNotes(set, scan, sheet.notes);

  await mkdir(layout.dir, { recursive: true });
  const lock = await RunLock.acquire(layout.lock);
  try {
    const files: FilesPlaced = { linked: 0, copied: 0, unchanged: 0, bytes: 0 };
    const builder = new SummaryBuilder();
    const rows = mergedRows(set, scan, layout, { files, builder, signal: options.signal });
    await writeAtomically(layout.manifest, manifestTextOf(head, { lines: rows }, []), [], options.signal);
    const summary = builder.finish(head);
    const assetsFile = await writeSheetCsv(layout.manifest, layout.dir, sheet.shape, sheet.cellsOf, scan.widths);
    const reportFile = await writeReportHtml(summary, layout.manifest, layout.dir, notes);
    return { folder: layout.dir, manifestFile: layout.manifest, assetsFile, reportFile, summary, files, notes };
  } finally {
    await lock.release();
  }
}

/**
 * The merged folder must not be one of the folders merged, nor hold a run's own output: a merge
 * replaces only an earlier merge.
 */
async function checkTarget(layout: OutputLayout, inputs: readonly ShardInput[], cwd: string): Promise<void> {
  const shown = path.relative(cwd, layout.dir) || '.';
  const real = await realpath(layout.dir).catch(() => undefined);
  if (real === undefined) return;
  for (const input of inputs)
    if ((await realpath(input.dir)) === real)
      throw new MergeRefusedError(`${shown} is one of the folders merged: merge into another --out`);
  if (await stat(path.join(layout.dir, 'journal.jsonl')).catch(() => undefined))
    throw new MergeRefusedError(
      `${shown} holds a run's output (journal.jsonl): merge into another --out, so the run's folder stays as it is`,
    );
  if (!(await stat(layout.manifest).catch(() => undefined))) return;
  const earlier = await readManifestHead(layout.manifest).catch(() => undefined);
  if (earlier?.merged_from === undefined)
    throw new MergeRefusedError(
      `${shown} holds a manifest.json that is not an earlier merge's: merge into another --out, so it stays as it is`,
    );
}

interface RowSinks {
  readonly files: FilesPlaced;
  readonly builder: SummaryBuilder;
  readonly signal: AbortSignal | undefined;
}

/** The merged rows as manifest lines, each row's files put in place before its line is given. */
async function* mergedRows(set: ShardSet, scan: RowScan, layout: OutputLayout, sinks: RowSinks) {
  const blank = new Map<string, string>();
  const folders = new Set<string>();
  let ordinal = 0;
  let index = 0;
  for (const input of set.shards) {
    const where = path.join(input.shown, 'manifest.json');
    let rows = 0;
    for await (const row of input.rows()) {
      rows++;
      // The same count as the scan's: a row written once, from the first input that had it.
      if (scan.kept.get(row.key) !== ordinal++) continue;
      sinks.signal?.throwIfAborted();
      if (!folders.has(row.folder)) {
        realFolder(layout, row.folder);
        folders.add(row.folder);
      }
      const files = rowFiles(row, where);
      for (let at = 0; at < files.length; at += FILES_AT_ONCE)
        await Promise.all(
          files.slice(at, at + FILES_AT_ONCE).map(async (file) => {
            const source = fileIn(input.dir, file.relative);
            if (!file.required && !lstatSync(source, { throwIfNoEntry: false })) return;
            count(sinks.files, await placeFile(source, fileIn(layout.dir, file.relative), file.sha256), file.bytes);
          }),
        );
      sinks.builder.add(index++, row.key, row.steps);
      yield rowLine({ ...row, shard: input.label }, blank);
    }
    // A manifest rewritten since the scan (a shard run going on in a shared folder): the rows
    // written may not be those checked. The earlier merge's manifest stays.
    if (rows !== scan.byShard.get(input.label)?.rows)
      throw new MergeRefusedError(`${where} changed while it was merged: merge again once its run is over`);
  }
}

/** A shard whose run is still going on, on this machine, is not merged: its manifest is not final. */
async function notRunningHere(input: ShardInput): Promise<void> {
  if (input.head.status !== 'running') return;
  const holder = await lockHolder(path.join(input.dir, '.lock'));
  // A lock from another machine cannot be checked: a killed CI job leaves one for good.
  if (holder?.alive === true && holder.host === hostname())
    throw new MergeRefusedError(
      `${input.shown}: shard ${input.label} is still running (process ${holder.pid}, started ${holder.started_at}): merge once it is over`,
    );
}

function count(files: FilesPlaced, placement: Placement, bytes: number): void {
  files[placement]++;
  if (placement !== 'unchanged') files.bytes += bytes;
}

/** A row folder already in the merged folder must be a folder, not a link that would lead writes elsewhere. */
function realFolder(layout: OutputLayout, folder: string): void {
  const info = lstatSync(fileIn(layout.dir, folder), { throwIfNoEntry: false });
  if (info && !info.isDirectory())
    throw new MergeRefusedError(
      `${path.join(layout.dir, folder)}: not a folder (a link?); refusing to write through it`,
    );
}
