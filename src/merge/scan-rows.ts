/**
 * The merge's first pass over the shards' rows, before anything is written: every row checked
 * (schema, paths, its files there with their size), every row key once (the same row in two
 * shards is taken once when its results are the same, and refuses the merge when they differ),
 * and the tallies the merged manifest's totals need. Rows are read as they come; what is kept is a
 * few bytes a row (its key, which input row is written, a digest of its results).
 */
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { ManifestRowEntry, StepCounts } from '../manifest/manifest-schema.js';
import { type CreditTally, newCreditTally, newStepCounts, tallyStep } from '../manifest/manifest-totals.js';
import type { ShardSet } from './check-shards.js';
import { MergeRefusedError } from './merge-refused.js';
import { fileIn, rowFiles } from './row-files.js';
import type { ShardInput } from './shard-input.js';

/** What a shard's rows look like: how its assets.csv is laid out. */
export interface ShardRows {
  readonly rows: number;
  /** The steps, in the order its rows list them. */
  readonly stepIds: readonly string[];
  /** The most files one row's step made. */
  readonly widths: ReadonlyMap<string, number>;
}

export interface RowScan {
  /** Each row key, with the input row written for it (see rowsToWrite: they count rows the same way). */
  readonly kept: ReadonlyMap<string, number>;
  readonly credits: CreditTally;
  readonly steps: StepCounts;
  /** Rows in the merged manifest. */
  readonly rows: number;
  /** Files to place, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  readonly byShard: ReadonlyMap<string, ShardRows>;
  /** Every step, in the order rows list them. */
  readonly stepIds: readonly string[];
  /** The most files one row's step made, in any shard (assets.csv's file columns). */
  readonly widths: ReadonlyMap<string, number>;
  /** Earlier results a redo replaced that are not in their shard folder (not required). */
  readonly replacedAbsent: number;
}

interface Seen {
  readonly ordinal: number;
  readonly digest: string;
  readonly input: ShardInput;
}

export async function scanRows(set: ShardSet, signal?: AbortSignal): Promise<RowScan> {
  const seen = new Map<string, Seen>();
  const credits = newCreditTally();
  const steps = newStepCounts();
  const byShard = new Map<string, ShardRows>();
  const stepIds = new Set<string>();
  const allWidths = new Map<string, number>();
  let ordinal = 0;
  let placed = 0;
  let bytes = 0;
  let replacedAbsent = 0;
  for (const input of set.shards) {
    const where = path.join(input.shown, 'manifest.json');
    const shardSteps = new Set<string>();
    const widths = new Map<string, number>();
    const folders = new Set<string>();
    let rows = 0;
    for await (const row of input.rows()) {
      signal?.throwIfAborted();
      rows++;
      for (const step of row.steps) {
        shardSteps.add(step.step);
        stepIds.add(step.step);
        widths.set(step.step, Math.max(widths.get(step.step) ?? 1, step.files.length));
        allWidths.set(step.step, Math.max(allWidths.get(step.step) ?? 1, step.files.length));
      }
      const digest = resultDigest(row);
      const earlier = seen.get(row.key);
      const at = ordinal++;
      if (earlier) {
        if (earlier.digest !== digest) throw conflict(row.key, earlier.input, input);
        continue;
      }
      seen.set(row.key, { ordinal: at, digest, input });
      for (const step of row.steps) {
        steps[step.status]++;
        tallyStep(credits, row.key, step);
      }
      const files = rowFiles(row, where);
      if (!folders.has(row.folder)) {
        realFolder(input.dir, row.folder, where);
        folders.add(row.folder);
      }
      for (const file of files) {
        // Synchronous, as in place-file.ts: a stat takes microseconds, through the thread pool ten times that.
        const info = lstatSync(fileIn(input.dir, file.relative), { throwIfNoEntry: false });
        if (!info && !file.required) {
          replacedAbsent++;
          continue;
        }
        if (!info?.isFile())
          throw new MergeRefusedError(
            `${path.join(input.shown, file.relative)}: ${info ? 'not a plain file (a link?)' : 'listed in its manifest but not in the folder'}; was the shard folder copied whole?`,
          );
        if (info.size !== file.bytes)
          throw new MergeRefusedError(
            `${path.join(input.shown, file.relative)}: ${info.size} bytes, its manifest says ${file.bytes}`,
          );
        placed++;
        bytes += info.size;
      }
    }
    byShard.set(input.label, { rows, stepIds: [...shardSteps], widths });
  }
  for (const { input, of } of set.copies) await compareCopy(input, of, seen, byShard.get(of.label)?.rows ?? 0);
  return {
    kept: new Map([...seen].map(([key, { ordinal: at }]) => [key, at])),
    credits,
    steps,
    rows: seen.size,
    files: placed,
    bytes,
    byShard,
    stepIds: [...stepIds],
    widths: allWidths,
    replacedAbsent,
  };
}

/**
 * The rows of a copy of a shard run must be those of the shard merged: any row the copy has
 * differently (or not at all) refuses the merge, as a conflict would.
 */
async function compareCopy(copy: ShardInput, of: ShardInput, seen: Map<string, Seen>, rows: number): Promise<void> {
  let count = 0;
  for await (const row of copy.rows()) {
    count++;
    const earlier = seen.get(row.key);
    if (earlier?.input !== of || earlier.digest !== resultDigest(row)) throw conflict(row.key, of, copy);
  }
  if (count !== rows)
    throw new MergeRefusedError(
      `${of.shown} and ${copy.shown} both hold shard ${of.label} of run ${of.head.run_id}, but with ${rows} and ${count} rows; give only the one to merge`,
    );
}

function conflict(key: string, first: ShardInput, second: ShardInput): MergeRefusedError {
  return new MergeRefusedError(
    `row ${JSON.stringify(key)} is in ${first.shown} (shard ${first.label}) and in ${second.shown} (shard ${second.label}) with different results; give only one of them`,
  );
}

/** What makes two copies of a row the same result: each step's status and files (path and content). */
function resultDigest(row: ManifestRowEntry): string {
  const result = row.steps.map((step) => [step.step, step.status, step.files.map((f) => [f.path, f.sha256])]);
  return createHash('sha256')
    .update(JSON.stringify([row.folder, result]))
    .digest('base64url')
    .slice(0, 22);
}

/** A row folder in a shard folder must be a folder there, not a link to somewhere else. */
function realFolder(dir: string, folder: string, where: string): void {
  const info = lstatSync(fileIn(dir, folder), { throwIfNoEntry: false });
  if (info && !info.isDirectory())
    throw new MergeRefusedError(
      `${where}: row folder ${JSON.stringify(folder)} is not a folder (a link?); refusing to read through it`,
    );
}
