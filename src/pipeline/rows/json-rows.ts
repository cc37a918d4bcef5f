/**
 * Rows from a JSON file: a list of objects whose values are text, numbers, booleans or null.
 * Rows are numbered from 1 in the order of the list.
 */
import * as z from 'zod';
import type { Problem } from '../problem.js';
import { describeInput, rowValueSchema } from '../schema/value-schemas.js';
import type { RowsResult } from './csv-rows.js';
import { tableFromRecords } from './row-table.js';

export const rowRecordSchema = z.record(z.string(), rowValueSchema, {
  error: (issue) => `expected a row (a mapping of column to value), got ${describeInput(issue.input)}`,
});
export const rowListSchema = z.array(rowRecordSchema, {
  error: (issue) => `expected a list of rows, got ${describeInput(issue.input)}`,
});

export function jsonRows(file: string, text: string): RowsResult {
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'json-syntax',
          message: `cannot read JSON: ${jsonMessage(error, text)}`,
          location: { file },
        },
      ],
    };
  }
  const parsed = rowListSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    const problems: Problem[] = parsed.error.issues.map((issue) => {
      const [index, column] = issue.path;
      const where = typeof column === 'string' ? `column "${column}": ` : '';
      return {
        severity: 'error',
        code: 'rows-value',
        message: `${where}${issue.message}`,
        location: typeof index === 'number' ? { file, row: index + 1 } : { file },
      };
    });
    return { ok: false, problems };
  }
  const records = parsed.data;
  return { ok: true, table: tableFromRecords(file, records, (index) => ({ file, row: index + 1 })) };
}

/** Node's messages carry an offset ("at position 42"); turn it into a line and column. */
function jsonMessage(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /at position (\d+)/.exec(message);
  if (!match) return message;
  const offset = Number(match[1]);
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const col = (before.at(-1)?.length ?? 0) + 1;
  return `${message.replace(/ (in JSON )?at position \d+.*$/, '')} at line ${line}, column ${col}`;
}
