/**
 * Small value schemas shared by the pipeline schema: templates, numbers that may be templates,
 * durations, and the scalar values a row may hold.
 */
import * as z from 'zod';

/** A string with at least one `${{ ... }}`; the template stage checks what is inside. */
export const TEMPLATE_MARK = '${{';

/**
 * zod reports the one branch of a union whose type matched, not the union, so every branch of
 * these unions carries the whole message: "expected X or a template, got Y".
 */
function expecting(expected: string) {
  return { error: (issue: { input?: unknown }) => `expected ${expected}, got ${describeInput(issue.input)}` };
}

function templateOr(expected: string) {
  return z
    .string(expecting(expected))
    .refine((value) => value.includes(TEMPLATE_MARK), expecting(expected))
    .meta({ pattern: '\\$\\{\\{' });
}

/**
 * An integer, or a template that renders to one per row (e.g. a spreadsheet column). Ranges are
 * checked by rules, because they apply to rendered values too.
 */
export function templatableInt(description: string) {
  const expected = 'an integer or a ${{ row.<column> }} template';
  return z
    .union([z.number(expecting(expected)).int(expecting(expected)), templateOr(expected)], expecting(expected))
    .describe(description);
}

/** A number, or a template that renders to one per row. */
export function templatableNumber(description: string) {
  const expected = 'a number or a ${{ row.<column> }} template';
  return z.union([z.number(expecting(expected)), templateOr(expected)], expecting(expected)).describe(description);
}

/** A boolean, or a template that renders to yes/no per row. */
export function templatableBoolean(description: string) {
  const expected = 'true, false or a ${{ row.<column> }} template';
  return z.union([z.boolean(expecting(expected)), templateOr(expected)], expecting(expected)).describe(description);
}

/** Seconds as a number, or a string with a unit: "500ms", "90s", "5m", "1h". */
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

const DURATION_EXPECTED = 'a positive number of seconds or a duration such as "90s", "5m" or "500ms"';

export const durationSchema = z
  .union(
    [
      z.number(expecting(DURATION_EXPECTED)).positive(expecting(DURATION_EXPECTED)),
      z.string(expecting(DURATION_EXPECTED)).regex(DURATION_PATTERN, expecting(DURATION_EXPECTED)),
    ],
    expecting(DURATION_EXPECTED),
  )
  .describe('Seconds, or a duration with a unit: "500ms", "90s", "5m", "1h".');

export function durationToMs(value: number | string): number {
  if (typeof value === 'number') return value * 1000;
  const match = DURATION_PATTERN.exec(value);
  if (!match) throw new Error(`not a duration: ${value}`);
  const amount = Number(match[1]);
  const unit = match[2];
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return amount * factor;
}

export const rowValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: (issue) => `expected a text, a number, true/false or an empty cell, got ${describeInput(issue.input)}`,
});

/** "a string ("abc")", "a mapping", "nothing": how a bad value reads in a message. */
export function describeInput(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'an empty value';
  if (Array.isArray(input)) return 'a list';
  switch (typeof input) {
    case 'string':
      return `the text ${JSON.stringify(input.length > 60 ? `${input.slice(0, 57)}...` : input)}`;
    case 'number':
      return `the number ${input}`;
    case 'boolean':
      return `${input}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof input;
  }
}
