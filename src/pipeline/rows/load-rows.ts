/**
 * Load a pipeline's rows: inline (already checked by the pipeline schema), or from a CSV, JSON or
 * YAML file resolved relative to the pipeline file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeRowsFile } from '../encoding/decode-rows-file.js';
import type { Problem } from '../problem.js';
import type { RowsInput } from '../schema/pipeline-schema.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { csvRows, type RowsResult } from './csv-rows.js';
import { jsonRows } from './json-rows.js';
import { singleEmptyRow, tableFromRecords } from './row-table.js';
import { yamlRows } from './yaml-rows.js';

export interface RowsContext {
  /** The pipeline file as shown in messages. */
  readonly file: string;
  /** The folder of the pipeline file, for relative row files. */
  readonly dir: string;
  readonly locator: YamlLocator;
}

const FORMATS: Readonly<Record<string, 'csv' | 'json' | 'yaml'>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
};

/** The rows, with the text of the rows file they were read from (none for inline rows). */
export type LoadedRows = RowsResult & { readonly text?: string };

export async function loadRows(rows: RowsInput | undefined, context: RowsContext): Promise<LoadedRows> {
  const { file, locator } = context;
  if (rows === undefined) return { ok: true, table: singleEmptyRow(file, locator.start()) };
  if (Array.isArray(rows)) {
    return { ok: true, table: tableFromRecords(file, rows, (index) => locator.locate(['rows', index])) };
  }

  const format = rows.format ?? FORMATS[path.extname(rows.file).toLowerCase()];
  const here = locator.locate(['rows', 'file']);
  if (!format) {
    return fail({
      severity: 'error',
      code: 'rows-format',
      message: `rows.file: cannot tell the format of "${rows.file}": expected a .csv, .json, .yaml or .yml file, or set rows.format`,
      location: here,
    });
  }
  const absolute = path.resolve(context.dir, rows.file);
  // Rows files are shown relative to the pipeline's own display path, as the user wrote them.
  const shown = path.join(path.dirname(file), rows.file);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(absolute);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String((error as Error).message);
    return fail({
      severity: 'error',
      code: 'rows-file',
      message: `rows.file: cannot read "${rows.file}": ${reason}`,
      location: here,
    });
  }
  const decoded = decodeRowsFile(bytes, rows.encoding);
  if (!decoded.ok) {
    const at = decoded.line === undefined ? {} : { line: decoded.line, col: decoded.col ?? 1 };
    return fail({
      severity: 'error',
      code: 'rows-encoding',
      message: decoded.message,
      location: { file: shown, ...at },
    });
  }
  const { text } = decoded;
  const read =
    format === 'csv' ? csvRows(shown, text) : format === 'json' ? jsonRows(shown, text) : yamlRows(shown, text);
  return { ...read, text };
}

function fail(problem: Problem): RowsResult {
  return { ok: false, problems: [problem] };
}
