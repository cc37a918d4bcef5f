/** `--redo`: ROW:STEP, ROW and *:STEP, globs in both parts, and the steps that use a redone one. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { type RedoInput, selectRedo, type SelectableStep } from '../../src/select/redo-selection.js';
import type { RowKeys } from '../../src/select/row-matcher.js';

const rowsOf = (...keys: string[]): RowKeys => ({ count: keys.length, key: (index) => keys[index] ?? '' });
/** hero <- big <- cut; hero <- clip; voice alone. */
const STEPS: SelectableStep[] = [
  { id: 'hero', dependsOn: [] },
  { id: 'big', dependsOn: ['hero'] },
  { id: 'cut', dependsOn: ['big'] },
  { id: 'clip', dependsOn: ['hero'] },
  { id: 'voice', dependsOn: [] },
];
const INPUT: RedoInput = { rows: rowsOf('A1', 'B2', 'C3'), steps: STEPS };

/** The selected instances as "row/step". */
function redone(values: string[], input: RedoInput = INPUT): string[] {
  const set = selectRedo(values, input);
  const out: string[] = [];
  for (let row = 0; row < input.rows.count; row++)
    for (const [index, step] of input.steps.entries())
      if (set.has(row, index)) out.push(`${input.rows.key(row)}/${step.id}`);
  return out;
}

function usageError(values: string[], input: RedoInput = INPUT): string {
  try {
    selectRedo(values, input);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('--redo', () => {
  it('redoes a step and every step that uses its output, transitively, in its row only', () => {
    expect(redone(['A1:hero'])).toEqual(['A1/hero', 'A1/big', 'A1/cut', 'A1/clip']);
    expect(redone(['B2:big'])).toEqual(['B2/big', 'B2/cut']);
    expect(redone(['C3:voice'])).toEqual(['C3/voice']);
  });

  it('takes a whole row, a step in every row, and globs in both parts', () => {
    expect(redone(['B2'])).toEqual(['B2/hero', 'B2/big', 'B2/cut', 'B2/clip', 'B2/voice']);
    expect(redone(['*:cut'])).toEqual(['A1/cut', 'B2/cut', 'C3/cut']);
    expect(redone(['?2:c*'])).toEqual(['B2/cut', 'B2/clip']);
    expect(redone(['2-3:voice', 'A1:cut'])).toEqual(['A1/cut', 'B2/voice', 'C3/voice']);
  });

  it('reads a row key with a colon in it as a row', () => {
    const input = { ...INPUT, rows: rowsOf('a:hero', 'b') };
    expect(redone(['a:hero'], input)).toEqual([
      'a:hero/hero',
      'a:hero/big',
      'a:hero/cut',
      'a:hero/clip',
      'a:hero/voice',
    ]);
    expect(redone(['a:hero:voice'], input)).toEqual(['a:hero/voice']);
  });

  it('refuses an unknown step or row, with the closest name, and reports them all', () => {
    expect(usageError(['A1:hreo'])).toBe('--redo A1:hreo: no step "hreo" in the pipeline; did you mean "hero"?');
    expect(usageError(['a1:hero', '*:z*']).split('\n')).toEqual([
      '--redo a1:hero: no row has the key "a1"; did you mean "A1"?',
      '--redo *:z*: no step id matches "z*"',
    ]);
    expect(usageError(['A1:'])).toBe('--redo A1:: no step after the colon (expected ROW:STEP)');
    expect(usageError(['4:hero'])).toMatch(/goes past the last row/);
  });

  it('refuses a redo of rows that --rows does not take', () => {
    const selected = (row: number) => row === 0;
    expect(redone(['*:voice'], { ...INPUT, selected })).toEqual(['A1/voice']);
    expect(usageError(['B2:hero'], { ...INPUT, selected })).toBe('--redo B2:hero: its row is not selected by --rows');
  });
});
