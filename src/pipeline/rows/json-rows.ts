/**
 * Rows from a JSON file: a list of objects whose values are text, numbers, booleans or null.
 * Rows are numbered from 1 in the order of the list.
 */
import * as z from 'zod';
import type { Problem } from '../problem.js';
import { describeInput, rowValueSchema } from '../schema/value-schemas.js';
import { LineIndex } from '../yaml/line-index.js';
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

/**
 * One line with a line and column, from V8's three shapes of JSON.parse message: "... at position
 * N", "Unexpected end of JSON input", and "Unexpected token 'X', "<excerpt>" is not valid JSON",
 * whose excerpt (the whole text, or "..." and 10 characters either side) may span lines.
 */
export function jsonMessage(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = (offset: number, what: string) => {
    const { line, col } = new LineIndex(text).position(offset);
    return `${what} at line ${line}, column ${col}`;
  };
  const position = /^(.*?)(?: in JSON)? at position (\d+)/s.exec(message);
  if (position?.[1] && position[2]) return at(Number(position[2]), position[1]);
  if (message.startsWith('Unexpected end of JSON input')) return at(text.length, 'the file ends too early');
  const token = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*?)"(\.\.\.)? is not valid JSON$/.exec(message);
  if (token?.[1] && token[3] !== undefined) {
    const excerpt = token[3];
    const start = text.indexOf(excerpt);
    const before = token[2] ? 10 : excerpt.indexOf(token[1]);
    if (start !== -1 && before >= 0) return at(start + before, `unexpected "${token[1]}"`);
    return `unexpected "${token[1]}"`;
  }
  return message.split('\n', 1)[0] ?? message;
}
