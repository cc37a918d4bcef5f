/**
 * The rows' own columns for the merged assets.csv. A merge has no pipeline file, so the sheet's
 * columns and each row's cells come from the shards' assets.csv files, which every run writes:
 * after the key come the sheet's columns, then each step's status and file columns (as many as the
 * shard's manifest says), then two credit columns, so the shard's manifest tells where the sheet's
 * columns end. A shard whose assets.csv is missing, or laid out otherwise, leaves its rows' cells
 * blank, and says so.
 *
 * The cells are held, a row's worth each (as a run holds its sheet); files and manifests are not.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse';
import { ASSETS_CSV, type SheetShape } from '../report/assets-csv.js';
import type { ShardSet } from './check-shards.js';
import type { RowScan, ShardRows } from './scan-rows.js';

export interface MergedSheet {
  readonly shape: SheetShape;
  readonly cellsOf: (key: string) => readonly string[] | undefined;
  /** Shards whose rows' own columns could not be had, and why. */
  readonly notes: readonly string[];
}

export async function readShardSheets(set: ShardSet, scan: RowScan): Promise<MergedSheet> {
  const columns: string[] = [];
  const cells = new Map<string, string[]>();
  const notes: string[] = [];
  for (const input of set.shards) {
    const shape = scan.byShard.get(input.label);
    if (!shape || shape.rows === 0) continue;
    const file = path.join(input.dir, ASSETS_CSV);
    const shown = path.join(input.shown, ASSETS_CSV);
    const problem = await readSheet(file, shape, columns, cells);
    if (problem) notes.push(`${shown} ${problem}: the rows of shard ${input.label} have blank sheet columns here.`);
  }
  return { shape: { columns, stepIds: scan.stepIds }, cellsOf: (key) => cells.get(key), notes };
}

/** Adds a shard sheet's rows to `cells` (in the order of `columns`, which it may extend); or says what is wrong. */
async function readSheet(
  file: string,
  shape: ShardRows,
  columns: string[],
  cells: Map<string, string[]>,
): Promise<string | undefined> {
  let place: number[] | undefined;
  const input = createReadStream(file);
  const records = parse({ bom: true, relax_column_count: true });
  // pipe() passes no error on: a file that cannot be opened would leave the parser waiting.
  input.on('error', (error) => records.destroy(error));
  try {
    for await (const record of input.pipe(records)) {
      const fields = record as string[];
      if (!place) {
        const width = sheetWidth(fields, shape);
        if (width < 0) return 'does not match its manifest (written by another run?)';
        place = placeColumns(fields.slice(1, 1 + width), columns);
        continue;
      }
      const [key] = fields;
      if (key === undefined || cells.has(key)) continue;
      const row: string[] = [];
      for (const [i, at] of place.entries()) row[at] = fields[1 + i] ?? '';
      cells.set(key, row);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'is missing' : `cannot be read (${(error as Error).message})`;
  } finally {
    // Stopping early (a sheet that does not fit) leaves the file open otherwise: pipe() does not close it.
    input.destroy();
  }
  return place ? undefined : 'is empty';
}

/**
 * Where each of a shard sheet's columns goes among the merged ones: the same place when they are
 * the same columns (the shards of one checkout share one rows file), else by name, new ones last.
 */
function placeColumns(names: readonly string[], columns: string[]): number[] {
  if (columns.length === 0) columns.push(...names);
  if (names.length === columns.length && names.every((name, i) => name === columns[i])) return names.map((_, i) => i);
  return names.map((name) => {
    const at = columns.indexOf(name);
    return at >= 0 ? at : columns.push(name) - 1;
  });
}

/** How many of the sheet's own columns a shard's assets.csv header has; -1 when it is not one. */
function sheetWidth(header: readonly string[], shape: ShardRows): number {
  const stepColumns = shape.stepIds.reduce((sum, id) => sum + 1 + (shape.widths.get(id) ?? 1), 0);
  const width = header.length - 3 - stepColumns;
  const [firstStep] = shape.stepIds;
  const fits =
    width >= 0 &&
    header[0] === 'row' &&
    header.at(-2) === 'credits_run' &&
    header.at(-1) === 'credits_total' &&
    (firstStep === undefined || header[1 + width] === `${firstStep}_status`);
  return fits ? width : -1;
}
