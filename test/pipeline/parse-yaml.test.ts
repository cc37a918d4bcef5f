import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/pipeline/yaml/parse-yaml.js';

describe('parseYaml', () => {
  it('keeps positions for any path', () => {
    const result = parseYaml('p.yaml', 'a: 1\nsteps:\n  - id: x\n    generate: { model: m }\n');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.locator.locate(['steps', 0, 'generate', 'model'])).toEqual({
      file: 'p.yaml',
      line: 4,
      col: 24,
    });
    expect(result.value.locator.locate(['steps', 0, 'id'], { key: true })).toEqual({ file: 'p.yaml', line: 3, col: 5 });
    // A missing field points at the deepest node that exists.
    expect(result.value.locator.locate(['steps', 0, 'generate', 'prompt'])).toEqual({
      file: 'p.yaml',
      line: 4,
      col: 15,
    });
  });

  it('refuses duplicate keys with the position of the second', () => {
    const result = parseYaml('p.yaml', 'name: a\nversion: 1\nname: b\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toMatchObject([{ code: 'yaml-duplicate-key', location: { line: 3, col: 1 } }]);
  });

  it('stops an alias bomb quickly with a clear message', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const started = performance.now();
    const result = parseYaml('bomb.yaml', `${levels.join('\n')}\n`);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]?.code).toBe('yaml-alias-limit');
    expect(result.problems[0]?.message).toContain('alias bomb');
    // The level whose expansion passes a million nodes (9^7).
    expect(result.problems[0]?.location).toMatchObject({ line: 7 });
  });

  it('allows one anchor reused on thousands of rows (linear, not a bomb)', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `  - { sku: S${i}, color: *c, base: *b }`).join('\n');
    const result = parseYaml('p.yaml', `color: &c red\nbase: &b { model: z, size: 2 }\nrows:\n${rows}\n`);
    expect(result.ok).toBe(true);
  });

  it('refuses an alias that contains itself', () => {
    const result = parseYaml('p.yaml', 'a: &a [1, *a]\n');
    expect(!result.ok && result.problems[0]).toMatchObject({
      code: 'yaml-alias-limit',
      location: { line: 1, col: 11 },
    });
  });

  it('allows a few anchors and merge keys, as pipelines use them', () => {
    const result = parseYaml('p.yaml', 'base: &base { model: z }\nstep: { <<: *base, prompt: p }\n');
    expect(result.ok && result.value.data).toEqual({ base: { model: 'z' }, step: { model: 'z', prompt: 'p' } });
  });

  it('reports syntax errors with their line', () => {
    const result = parseYaml('p.yaml', 'steps:\n  - id: a\n   bad: [1, 2\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.length).toBeGreaterThan(0);
    expect(result.problems[0]?.location).toMatchObject({ file: 'p.yaml' });
  });

  it('reports a syntax error inside the file and counts the errors that follow from it', () => {
    // A stray "]" makes every later token unexpected; the parser's own line counter drifted here.
    const text = 'steps:\n  - id: a\n    generate:\n]      num_images: 2\n  - id: b\n    tts: { text: t }\n';
    const result = parseYaml('p.yaml', text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = text.split('\n');
    for (const problem of result.problems) {
      const { line, col } = problem.location as { line: number; col: number };
      expect(col).toBeLessThanOrEqual((lines[line - 1]?.length ?? 0) + 1);
    }
    expect(result.problems.length).toBeLessThanOrEqual(6);
    expect(result.problems.at(-1)?.message).toMatch(/^\d+ more YAML syntax errors not shown/);
  });

  it('refuses an empty document and several documents', () => {
    const empty = parseYaml('p.yaml', '# nothing\n');
    expect(!empty.ok && empty.problems[0]?.message).toBe('the file is empty');
    const two = parseYaml('p.yaml', 'a: 1\n---\nb: 2\n');
    expect(!two.ok && two.problems[0]?.code).toBe('yaml-multiple-docs');
  });
});
