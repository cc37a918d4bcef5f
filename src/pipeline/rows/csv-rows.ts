/**
 * Rows from a CSV file, as spreadsheets export them: a header row, a byte-order mark or not,
 * CRLF or LF, quoted cells with commas, quotes and line breaks, empty cells (""), and trailing
 * empty rows (skipped). Rows are numbered as the spreadsheet shows them: the header is row 1.
 */
import { CsvError, parse } from 'csv-parse/sync';
import type { Problem } from '../problem.js';
import type { RowTable } from './row-table.js';

export type RowsResult =
  { readonly ok: true; readonly table: RowTable } | { readonly ok: false; readonly problems: readonly Problem[] };

export function csvRows(file: string, text: string): RowsResult {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (error) {
    if (error instanceof CsvError) {
      // csv-parse notices an unclosed quote only at the end of the file; say where it opened.
      const opened = error.code === 'CSV_QUOTE_NOT_CLOSED' ? rowOfUnclosedQuote(text) : undefined;
      if (opened !== undefined) {
        return {
          ok: false,
          problems: [
            problem(
              file,
              opened,
              'cannot read CSV: a quoted cell that starts in this row is never closed (a " is missing)',
              'csv-syntax',
            ),
          ],
        };
      }
      const line = typeof error.lines === 'number' ? error.lines : 1;
      return { ok: false, problems: [problem(file, line, `cannot read CSV: ${csvMessage(error)}`, 'csv-syntax')] };
    }
    throw error;
  }
  const [header, ...body] = records;
  if (!header)
    return {
      ok: false,
      problems: [problem(file, 1, 'the file is empty: expected a header row of column names', 'csv-empty')],
    };

  const problems: Problem[] = [];
  const columns = header.map((name) => name.trim());
  const seen = new Map<string, number>();
  columns.forEach((name, i) => {
    if (name === '') problems.push(problem(file, 1, `column ${i + 1} of the header has no name`, 'csv-header'));
    const first = seen.get(name);
    if (name !== '' && first !== undefined) {
      problems.push(
        problem(
          file,
          1,
          `column "${name}" appears twice in the header (columns ${first + 1} and ${i + 1})`,
          'csv-header',
        ),
      );
    }
    seen.set(name, i);
  });

  // Keep the spreadsheet's numbering: skipped blank rows still count.
  const cells: string[][] = [];
  const rowNumbers: number[] = [];
  body.forEach((record, i) => {
    const rowNumber = i + 2;
    if (record.every((cell) => cell === '')) return;
    if (record.length !== columns.length) {
      problems.push(
        problem(
          file,
          rowNumber,
          `expected ${columns.length} cells (one per header column), got ${record.length}`,
          'csv-row-length',
        ),
      );
    }
    cells.push(record);
    rowNumbers.push(rowNumber);
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    table: { file, columns, cells, locate: (index) => ({ file, row: rowNumbers[index] ?? index + 2 }) },
  };
}

/** The spreadsheet row (header = 1, blank lines not counted) where a never-closed quote opens. */
export function rowOfUnclosedQuote(text: string): number | undefined {
  let row = 1;
  let inQuotes = false;
  let openedAt = 1;
  let atFieldStart = true;
  let lineHasContent = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') i++;
        else inQuotes = false;
      }
    } else if (c === '"' && atFieldStart) {
      inQuotes = true;
      openedAt = row;
      atFieldStart = false;
      lineHasContent = true;
    } else if (c === ',') {
      atFieldStart = true;
      lineHasContent = true;
    } else if (c === '\n') {
      if (lineHasContent) row++;
      atFieldStart = true;
      lineHasContent = false;
    } else if (c !== '\r') {
      atFieldStart = false;
      lineHasContent = true;
    }
  }
  return inQuotes ? openedAt : undefined;
}

function csvMessage(error: CsvError): string {
  // csv-parse says "Quote Not Closed: the parsing is finished with an opening quote at line 2".
  return error.message.replace(/ at line \d+/, '').replace(/^[A-Z][A-Za-z ]+: /, '');
}

function problem(file: string, row: number, message: string, code: string): Problem {
  return { severity: 'error', code, message, location: { file, row } };
}
