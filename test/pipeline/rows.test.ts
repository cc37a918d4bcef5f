import { describe, expect, it } from 'vitest';
import { csvRows } from '../../src/pipeline/rows/csv-rows.js';
import { jsonRows } from '../../src/pipeline/rows/json-rows.js';
import { yamlRows } from '../../src/pipeline/rows/yaml-rows.js';

describe('CSV rows', () => {
  it('reads a spreadsheet export: BOM, CRLF, quotes, commas, line breaks, empty cells', () => {
    const text = '\ufeffsku,name,note\r\nA1,"Trail, ""Runner""",\r\nB2,"two\r\nlines",x\r\n';
    const result = csvRows('p.csv', text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.table.columns).toEqual(['sku', 'name', 'note']);
    expect(result.table.cells).toEqual([
      ['A1', 'Trail, "Runner"', ''],
      ['B2', 'two\r\nlines', 'x'],
    ]);
    expect(result.table.locate(1)).toEqual({ file: 'p.csv', row: 3 });
  });

  it('skips blank and all-empty rows but keeps the spreadsheet numbering', () => {
    const result = csvRows('p.csv', 'sku,name\nA1,a\n,\nB2,b\n\n');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.table.cells).toEqual([
      ['A1', 'a'],
      ['B2', 'b'],
    ]);
    expect(result.table.locate(1)).toEqual({ file: 'p.csv', row: 4 });
  });

  it('trims header names', () => {
    const result = csvRows('p.csv', 'sku , name\nA1,a\n');
    expect(result.ok && result.table.columns).toEqual(['sku', 'name']);
  });

  it('reports every row of the wrong length, then header problems', () => {
    const result = csvRows('p.csv', 'sku,name,name,\nA1,a,b,c\nB2\nC3,a,b,c,d\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => [p.location, p.message])).toEqual([
      [{ file: 'p.csv', row: 1 }, 'column "name" appears twice in the header (columns 2 and 3)'],
      [{ file: 'p.csv', row: 1 }, 'column 4 of the header has no name'],
      [{ file: 'p.csv', row: 3 }, 'expected 4 cells (one per header column), got 1'],
      [{ file: 'p.csv', row: 4 }, 'expected 4 cells (one per header column), got 5'],
    ]);
  });

  it('reports an unclosed quote at the row where it opens, not at the end of the file', () => {
    const rows = [
      'sku,name',
      'A1,a',
      '',
      'B2,"City ""Walker"""',
      'C3,"Hill Climber',
      ...Array.from({ length: 50 }, (_, i) => `D${i},d`),
    ];
    const result = csvRows('p.csv', `${rows.join('\r\n')}\r\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        severity: 'error',
        code: 'csv-syntax',
        message: 'cannot read CSV: a quoted cell that starts in this row is never closed (a " is missing)',
        location: { file: 'p.csv', row: 4 },
      },
    ]);
  });

  it("reports other syntax errors without the parser's own line suffix", () => {
    const result = csvRows('p.csv', 'sku,name\nA1,"a"b\n');
    expect(!result.ok && result.problems[0]).toMatchObject({ location: { row: 2 } });
    expect(!result.ok && result.problems[0]?.message).toMatch(/^cannot read CSV: got "b" .*instead of delimiter/);
  });

  it('refuses an empty file', () => {
    const result = csvRows('p.csv', '');
    expect(!result.ok && result.problems[0]?.message).toContain('expected a header row');
  });
});

describe('JSON rows', () => {
  it('reads a list of objects, missing keys as absent cells', () => {
    const result = jsonRows('r.json', '[{"sku":"A","n":1},{"sku":"B","flag":true}]');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.table.columns).toEqual(['sku', 'n', 'flag']);
    expect(result.table.cells[1]).toEqual(['B', undefined, true]);
    expect(result.table.locate(1)).toEqual({ file: 'r.json', row: 2 });
  });

  it.each([
    ['a trailing comma', '[\n  {"a": 1},\n]\n', 'unexpected "]" at line 3, column 1'],
    ['a bad literal', '[{"a": tru}]', 'unexpected "}" at line 1, column 11'],
    ['a missing comma', '[{"a":1}\n{"b":2}]', "Expected ',' or ']' after array element at line 2, column 1"],
    ['an empty file', '', 'the file ends too early at line 1, column 1'],
  ])('reports %s on one line with its position', (_, text, message) => {
    const result = jsonRows('r.json', text);
    expect(!result.ok && result.problems[0]?.message).toBe(`cannot read JSON: ${message}`);
  });

  it('reports syntax errors with line and column, and bad values with their row', () => {
    const syntax = jsonRows('r.json', '[\n  {"sku": "A",}\n]');
    expect(!syntax.ok && syntax.problems[0]?.message).toMatch(/cannot read JSON: .* at line 2, column \d+/);
    const nested = jsonRows('r.json', '[{"sku":"A"},{"sku":{"x":1}}]');
    expect(!nested.ok && nested.problems[0]).toMatchObject({ location: { file: 'r.json', row: 2 } });
    expect(!nested.ok && nested.problems[0]?.message).toContain('column "sku"');
  });
});

describe('YAML rows', () => {
  it('reads a list of mappings with positions', () => {
    const result = yamlRows('r.yaml', '- sku: A\n  name: a\n- sku: B\n');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.table.locate(1)).toEqual({ file: 'r.yaml', line: 3, col: 3 });
  });

  it('points at a row that is not a mapping', () => {
    const result = yamlRows('r.yaml', '- sku: A\n- just text\n');
    expect(!result.ok && result.problems[0]).toMatchObject({ location: { file: 'r.yaml', line: 2, col: 3 } });
  });
});
