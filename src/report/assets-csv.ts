/**
 * assets.csv: the run's results as a sheet the team can paste back beside its own. One line per
 * row, in the rows file's order: the row key, the row's own columns as they came, then for each
 * step its status and the path of each file it made (`hero`, `hero_2`, ...; relative to the output
 * folder, as in the manifest), then what the row cost. Written after every run, from the run's kept
 * manifest, row by row: a sheet of 100,000 rows is never held whole. `assetline merge` writes one
 * the same way from its merged manifest, in that manifest's order, with the rows' own cells taken
 * from the shards' sheets.
 *
 * UTF-8 with a byte-order mark: Excel, still where most sheets are opened, reads a CSV without one
 * in the machine's legacy code page and garbles every accent and non-Latin name; LibreOffice,
 * Numbers and Google Sheets read the mark and drop it. Quoting is csv-stringify's.
 */
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { Manifest } from '../manifest/manifest-schema.js';
import { writeAtomically } from '../manifest/manifest-writer.js';
import { readManifestRows } from '../manifest/read-manifest.js';
import type { Expansion } from '../pipeline/expansion.js';
import type { RowValue } from '../pipeline/rows/row-table.js';

export const ASSETS_CSV = 'assets.csv';
const BOM = '\uFEFF';

type ManifestRow = Manifest['rows'][number];
type Cells = readonly (RowValue | undefined)[];

/**
 * What the sheet's columns come from: the rows file's own columns and the pipeline's steps, in
 * order. A run takes them from its pipeline; a merge, which may have none, from the shards.
 */
export interface SheetShape {
  readonly columns: readonly string[];
  readonly stepIds: readonly string[];
}

export function sheetShapeOf(expansion: Expansion): SheetShape {
  return { columns: expansion.rows.columns, stepIds: expansion.pipeline.steps.map((step) => step.id) };
}

/** Each step's file columns: as many as the most files one row's step made, at least one. */
export async function fileColumns(manifestFile: string, stepIds: readonly string[]): Promise<Map<string, number>> {
  const widths = new Map(stepIds.map((id) => [id, 1]));
  for await (const row of readManifestRows(manifestFile))
    for (const step of row.steps) widths.set(step.step, Math.max(widths.get(step.step) ?? 1, step.files.length));
  return widths;
}

function fileColumnName(stepId: string, index: number): string {
  return index === 0 ? stepId : `${stepId}_${index + 1}`;
}

/** A cell as a sheet shows it: text as it came, numbers and booleans written out, nothing for null. */
function cellText(value: RowValue | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

export function assetsHeader(shape: SheetShape, widths: ReadonlyMap<string, number>): string[] {
  const steps = shape.stepIds.flatMap((id) => [
    `${id}_status`,
    ...Array.from({ length: widths.get(id) ?? 1 }, (_, index) => fileColumnName(id, index)),
  ]);
  return ['row', ...shape.columns, ...steps, 'credits_run', 'credits_total'];
}

export function assetsLine(
  row: ManifestRow,
  cells: Cells,
  shape: SheetShape,
  widths: ReadonlyMap<string, number>,
): string[] {
  const byStep = new Map(row.steps.map((step) => [step.step, step]));
  const steps = shape.stepIds.flatMap((id) => {
    const step = byStep.get(id);
    const files = Array.from({ length: widths.get(id) ?? 1 }, (_, index) => step?.files[index]?.path ?? '');
    return [step?.status ?? '', ...files];
  });
  const run = row.steps.reduce((sum, step) => sum + step.credits.used, 0);
  // Every credit the row's steps cost across runs (a cached step keeps what it cost when made).
  const total = row.steps.reduce((sum, step) => sum + (step.credits.paid_total ?? step.credits.used), 0);
  return [row.key, ...shape.columns.map((_, index) => cellText(cells[index])), ...steps, String(run), String(total)];
}

/** A row's own cells, and its place in the sheet when the lines must come out in the sheet's order. */
interface SheetRow {
  readonly index: number | undefined;
  readonly cells: Cells;
}

async function* assetsLines(
  manifestFile: string,
  shape: SheetShape,
  sheetRow: (key: string) => SheetRow,
  reorder: boolean,
  known?: ReadonlyMap<string, number>,
): AsyncGenerator<string> {
  const widths = known ?? (await fileColumns(manifestFile, shape.stepIds));
  yield BOM + stringify([assetsHeader(shape, widths)]);
  // With `priority:` the manifest lists rows in the order they ran: their lines wait here to come
  // out in the sheet's order. Without it the manifest's order is the sheet's, and nothing is held.
  const held: string[] | undefined = reorder ? [] : undefined;
  const unknown: string[] = [];
  for await (const row of readManifestRows(manifestFile)) {
    const { index, cells } = sheetRow(row.key);
    const line = stringify([assetsLine(row, cells, shape, widths)]);
    if (!held) yield line;
    else if (index === undefined) unknown.push(line);
    else held[index] = line;
  }
  if (held) for (const line of [...held, ...unknown]) if (line !== undefined) yield line;
}

/** Writes `<output folder>/assets.csv` from the run's kept manifest and returns its path. */
export async function writeAssetsCsv(
  manifestFile: string,
  outputFolder: string,
  expansion: Expansion,
): Promise<string> {
  // The manifest names rows by key: without row_key, by their number from 1.
  const rowIndex = new Map(
    Array.from({ length: expansion.counts.rows }, (_, index) => [expansion.rowKeys[index] ?? String(index + 1), index]),
  );
  const sheetRow = (key: string): SheetRow => {
    const index = rowIndex.get(key);
    return { index, cells: index === undefined ? [] : (expansion.rows.cells[index] ?? []) };
  };
  const file = path.join(outputFolder, ASSETS_CSV);
  await writeAtomically(file, assetsLines(manifestFile, sheetShapeOf(expansion), sheetRow, expansion.prioritised));
  return file;
}

/**
 * Writes `<output folder>/assets.csv` from a manifest whose rows are already in the order the sheet
 * shows them (a merge's), each row's own cells from `cellsOf`, and returns its path. `widths`, the
 * most files one row's step made, when known: else the manifest is read once more for them.
 */
export async function writeSheetCsv(
  manifestFile: string,
  outputFolder: string,
  shape: SheetShape,
  cellsOf: (key: string) => Cells | undefined,
  widths?: ReadonlyMap<string, number>,
): Promise<string> {
  const file = path.join(outputFolder, ASSETS_CSV);
  const sheetRow = (key: string): SheetRow => ({ index: undefined, cells: cellsOf(key) ?? [] });
  await writeAtomically(file, assetsLines(manifestFile, shape, sheetRow, false, widths));
  return file;
}
