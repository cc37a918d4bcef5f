import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/pipeline/yaml/parse-yaml.js';
import { findTooDeep, MAX_NESTING_DEPTH } from '../../src/pipeline/yaml/nesting-depth.js';
import { lines, validateYaml } from '../helpers/temp-pipeline.js';

function blockMaps(levels: number): string {
  let text = '';
  for (let i = 0; i < levels; i++) text += `${' '.repeat(i)}a:\n`;
  return `${text}${' '.repeat(levels)}b: 1\n`;
}

describe('YAML nesting depth', () => {
  it('accepts nesting up to the limit', () => {
    expect(findTooDeep(blockMaps(MAX_NESTING_DEPTH - 1))).toBeUndefined();
    expect(findTooDeep(`x: ${'['.repeat(MAX_NESTING_DEPTH - 1)}${']'.repeat(MAX_NESTING_DEPTH - 1)}`)).toBeUndefined();
  });

  it('refuses 2,000 levels of block mappings at the line where the limit is passed', () => {
    const result = parseYaml('p.yaml', blockMaps(2000));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      code: 'yaml-too-deep',
      location: { file: 'p.yaml', line: MAX_NESTING_DEPTH + 1, col: MAX_NESTING_DEPTH + 1 },
    });
  });

  it('refuses deep flow nesting without a stack overflow', () => {
    const result = parseYaml('p.yaml', `x: ${'['.repeat(20000)}${']'.repeat(20000)}\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({
      code: 'yaml-too-deep',
      // "x:" is the first level, so the 64th bracket (column 3 + 64) passes the limit.
      location: { line: 1, col: 3 + MAX_NESTING_DEPTH },
    });
  });

  it('refuses deeply nested block lists in a pipeline file', async () => {
    // "- - - x" is a list in a list in a list: 2,000 levels on one line.
    const text = `version: 1\nname: t\nsteps:\n  ${'- '.repeat(2000)}x\n`;
    const result = await validateYaml(text);
    expect(result.errors.map((e) => e.code)).toEqual(['yaml-too-deep']);
    expect(lines(result)[0]).toMatch(/^pipeline\.yaml:4:\d+: .*more than 64 levels/);
  });
});
