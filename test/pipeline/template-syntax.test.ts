import { describe, expect, it } from 'vitest';
import { cellText, isTruthy, renderTemplate } from '../../src/pipeline/template/render-template.js';
import { parseTemplate } from '../../src/pipeline/template/template-syntax.js';

describe('template syntax', () => {
  it('parses row columns, quoted column names and step outputs', () => {
    const { parts, errors } = parseTemplate(
      'A ${{ row.name }} in ${{row["Colour Name"]}} from ${{ steps.hero.outputs[2] }}',
    );
    expect(errors).toEqual([]);
    expect(parts.filter((part) => part.kind === 'ref').map((part) => part.kind === 'ref' && part.ref)).toEqual([
      { kind: 'row', column: 'name' },
      { kind: 'row', column: 'Colour Name' },
      { kind: 'step', step: 'hero', index: 2 },
    ]);
  });

  it('treats steps.<id>.output as the first output', () => {
    const { parts } = parseTemplate('${{ steps.big.output }}');
    expect(parts).toMatchObject([{ kind: 'ref', ref: { kind: 'step', step: 'big', index: 0 } }]);
  });

  it.each([
    ['${{ row.name | upper }}', 'templates are paths, not code'],
    ['${{ row.a + row.b }}', 'templates are paths, not code'],
    ['${{ process.env.KEY }}', 'unknown template path'],
    ['${{ row }}', 'expected row.<column>'],
    ['${{ steps.hero }}', 'expected steps.<id>.output'],
    ['${{ steps.hero.outputs[x] }}', 'expected steps.<id>.output'],
    ['${{ }}', 'empty template'],
    ['a ${{ row.name', 'unclosed template'],
  ])('rejects %s', (text, message) => {
    const { errors } = parseTemplate(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(message);
  });

  it('reports where each bad template starts', () => {
    const { errors } = parseTemplate('ok ${{ row.a }} bad ${{ nope }}');
    expect(errors[0]?.start).toBe('ok ${{ row.a }} bad '.length);
  });

  it('renders rows without evaluating anything', () => {
    const template = parseTemplate('${{ row.name }} x${{ row.count }} ${{ row.flag }}${{ row.missing }}!');
    const cells: Record<string, string | number | boolean | null> = {
      name: 'Shoe',
      count: 2,
      flag: true,
      missing: null,
    };
    expect(renderTemplate(template, (column) => cells[column])).toBe('Shoe x2 true!');
  });

  it('reads spreadsheet yes/no values for when:', () => {
    for (const value of ['', '0', 'false', 'FALSE', 'no', 'No', 'n', 'off', ' none '])
      expect(isTruthy(value), value).toBe(false);
    for (const value of ['yes', 'true', '1', 'x', 'video']) expect(isTruthy(value), value).toBe(true);
    expect(cellText(undefined)).toBe('');
  });
});
