/**
 * The rows a pipeline runs for, kept compact: one array of cells per row and one list of column
 * names, so 100,000 rows cost little more than their text. Every source (inline YAML, CSV, JSON,
 * YAML file) ends up as this table.
 */
import type { Location } from '../problem.js';

export type RowValue = string | number | boolean | null;

export interface RowTable {
  /** The file the rows come from, as shown in messages (the pipeline itself for inline rows). */
  readonly file: string;
  readonly columns: readonly string[];
  /** `cells[row][column]`; a cell the row does not have is undefined. */
  readonly cells: readonly (readonly (RowValue | undefined)[])[];
  /** Where a row is, for messages: `file:line:col` in YAML, `file:row N` in a table file. */
  locate(rowIndex: number): Location;
}

export function columnIndex(table: RowTable): ReadonlyMap<string, number> {
  return new Map(table.columns.map((column, index) => [column, index]));
}

/** Build a table from records (inline YAML, JSON, YAML files): the union of their keys, in order of appearance. */
export function tableFromRecords(
  file: string,
  records: readonly Readonly<Record<string, RowValue>>[],
  locate: (rowIndex: number) => Location,
): RowTable {
  const index = new Map<string, number>();
  for (const record of records) {
    for (const key of Object.keys(record)) if (!index.has(key)) index.set(key, index.size);
  }
  const cells = records.map((record) => {
    const row = new Array<RowValue | undefined>(index.size);
    for (const [key, value] of Object.entries(record)) row[index.get(key) as number] = value;
    return row;
  });
  return { file, columns: [...index.keys()], cells, locate };
}

/** The single implicit row of a pipeline without `rows:`: its steps run once. */
export function singleEmptyRow(file: string, location: Location): RowTable {
  return { file, columns: [], cells: [[]], locate: () => location };
}
