/**
 * The `${{ ... }}` template language: a path into `row.<column>` (or `row["Column Name"]`), or into
 * `steps.<id>.output` / `steps.<id>.outputs[i]`. Nothing else: no expressions, no filters, no code is
 * ever evaluated. Parsing never throws; syntax errors come back with their offsets in the string.
 */

export type TemplateRef =
  | { readonly kind: 'row'; readonly column: string }
  | { readonly kind: 'step'; readonly step: string; readonly index: number };

export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'ref';
      readonly ref: TemplateRef;
      readonly start: number;
      readonly end: number;
      readonly source: string;
    };

export interface TemplateSyntaxError {
  readonly start: number;
  readonly source: string;
  readonly message: string;
}

export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  readonly errors: readonly TemplateSyntaxError[];
}

const OPEN = '${{';
const CLOSE = '}}';

const IDENT = '[A-Za-z_][A-Za-z0-9_-]*';
const ROW_DOT = new RegExp(`^row\\.(${IDENT})$`);
const ROW_BRACKET = /^row\[\s*(?:"([^"]+)"|'([^']+)')\s*\]$/;
const STEP_OUTPUT = new RegExp(`^steps\\.(${IDENT})\\.output$`);
const STEP_OUTPUTS = new RegExp(`^steps\\.(${IDENT})\\.outputs\\[\\s*(\\d+)\\s*\\]$`);

export function hasTemplate(value: string): boolean {
  return value.includes(OPEN);
}

export function parseTemplate(value: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const errors: TemplateSyntaxError[] = [];
  let cursor = 0;
  while (cursor < value.length) {
    const start = value.indexOf(OPEN, cursor);
    if (start === -1) {
      parts.push({ kind: 'text', text: value.slice(cursor) });
      break;
    }
    if (start > cursor) parts.push({ kind: 'text', text: value.slice(cursor, start) });
    const close = value.indexOf(CLOSE, start + OPEN.length);
    if (close === -1) {
      errors.push({ start, source: value.slice(start), message: 'unclosed template: expected "}}" after "${{"' });
      break;
    }
    const end = close + CLOSE.length;
    const source = value.slice(start, end);
    const expression = value.slice(start + OPEN.length, close).trim();
    const parsed = parseExpression(expression);
    if ('message' in parsed) errors.push({ start, source, message: parsed.message });
    else parts.push({ kind: 'ref', ref: parsed, start, end, source });
    cursor = end;
  }
  return { parts, errors };
}

function parseExpression(expression: string): TemplateRef | { message: string } {
  if (expression === '') return { message: 'empty template: expected a path such as ${{ row.name }}' };
  let match = ROW_DOT.exec(expression);
  if (match?.[1]) return { kind: 'row', column: match[1] };
  match = ROW_BRACKET.exec(expression);
  if (match) return { kind: 'row', column: match[1] ?? match[2] ?? '' };
  match = STEP_OUTPUT.exec(expression);
  if (match?.[1]) return { kind: 'step', step: match[1], index: 0 };
  match = STEP_OUTPUTS.exec(expression);
  if (match?.[1] && match[2]) return { kind: 'step', step: match[1], index: Number(match[2]) };
  return { message: explain(expression) };
}

/** Say what is wrong in the terms of the one grammar we have. */
function explain(expression: string): string {
  const shown = JSON.stringify(expression);
  if (/[|()+*/<>=!?:&;,{}]/.test(expression.replace(/\[\s*(\d+|"[^"]*"|'[^']*')\s*\]/g, ''))) {
    return `templates are paths, not code: ${shown} is not evaluated; expected row.<column>, steps.<id>.output or steps.<id>.outputs[<n>]`;
  }
  if (expression === 'row' || expression.startsWith('row.') || expression.startsWith('row[')) {
    return `expected row.<column> or row["<column name>"], got ${shown}`;
  }
  if (expression === 'steps' || expression.startsWith('steps.')) {
    return `expected steps.<id>.output or steps.<id>.outputs[<n>], got ${shown}`;
  }
  return `unknown template path ${shown}: a template starts with row. or steps.`;
}
