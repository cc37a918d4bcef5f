/** Render a parsed template's row references for one row (step outputs are never rendered as text). */
import type { ParsedTemplate } from './template-syntax.js';

export type CellValue = string | number | boolean | null | undefined;

/** How a cell reads inside text: empty and missing cells are "", numbers and booleans as written. */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

export function renderTemplate(template: ParsedTemplate, cell: (column: string) => CellValue): string {
  let out = '';
  for (const part of template.parts) {
    if (part.kind === 'text') out += part.text;
    else if (part.ref.kind === 'row') out += cellText(cell(part.ref.column));
  }
  return out;
}

/** `when:` truthiness of a rendered value, as a spreadsheet user writes yes and no. */
const FALSY = new Set(['', '0', 'false', 'no', 'n', 'off', 'null', 'none']);

export function isTruthy(text: string): boolean {
  return !FALSY.has(text.trim().toLowerCase());
}
