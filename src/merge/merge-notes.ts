/**
 * What a reader of the merged report should know about where its rows came from: the shards
 * merged and how each ended, the shards missing, and what could not be carried over.
 */
import { formatNumber } from '../report/format.js';
import type { ShardSet } from './check-shards.js';
import type { RowScan } from './scan-rows.js';

export function mergeNotes(set: ShardSet, scan: RowScan, sheetNotes: readonly string[]): string[] {
  const shards = set.shards.map((input) => `${input.label} ${input.head.status} (run ${input.head.run_id})`);
  const notes = [`Merged from ${shards.length === 1 ? '1 shard' : `${shards.length} shards`}: ${shards.join(', ')}.`];
  if (set.missing.length > 0)
    notes.push(
      `Missing shards: ${set.missing.join(', ')}. Their rows are not here; run them, then merge again with every shard.`,
    );
  const unfinished = set.shards.filter((input) => input.head.status === 'running');
  if (unfinished.length > 0)
    notes.push(
      `Shard ${unfinished.map((input) => input.label).join(', ')} never finished its manifest (killed, or copied while running): its rows are as its last manifest write left them. Run it again to finish it, then merge again.`,
    );
  if (scan.replacedAbsent > 0)
    notes.push(
      `${formatNumber(scan.replacedAbsent)} earlier results a redo replaced were not in their shard's runs/ folder: the manifest lists them, the files are not here.`,
    );
  return [...notes, ...sheetNotes];
}
