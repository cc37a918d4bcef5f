import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeSegment } from '../../src/paths/safe-segment.js';

describe('safeSegment', () => {
  it.each([
    ['SH-1001', 'SH-1001'],
    ['Café Noir', 'Café_Noir'],
    ['../../etc/passwd', '___.._etc_passwd'],
    ['..', '__'],
    ['.hidden', '_hidden'],
    ['a\\b', 'a_b'],
    ['C:\\Windows', 'C_Windows'],
    ['nul', '_nul'],
    ['', '_'],
    ['line\nbreak\0', 'line_break_'],
  ])('%j becomes %j', (input, expected) => {
    expect(safeSegment(input)).toBe(expected);
  });

  it('always yields one plain folder name inside its parent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (input) => {
        const segment = safeSegment(input);
        expect(segment.length).toBeGreaterThan(0);
        expect(segment.length).toBeLessThanOrEqual(100);
        expect(segment).not.toMatch(/[/\\\0]/);
        expect(segment.startsWith('.')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
