/**
 * Properties of validation over generated input: it never throws (bad input always becomes
 * problems), and every line:col it reports lies inside the file it names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validatePipelineText } from '../../src/pipeline/validate-pipeline.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const DIR = tempDir();
const FILE = 'p.yaml';
const DEMO = readFileSync(path.resolve(import.meta.dirname, '../../pipelines/demo.yaml'), 'utf8');

async function assertWellBehaved(text: string): Promise<void> {
  const result = await validatePipelineText(text, { file: FILE, dir: DIR });
  const lines = text.split('\n');
  for (const problem of [...result.errors, ...result.warnings]) {
    const location = problem.location;
    expect(problem.message.length).toBeGreaterThan(0);
    if (!('line' in location) || location.file !== FILE) continue;
    expect(location.line, problem.message).toBeGreaterThanOrEqual(1);
    expect(location.line, problem.message).toBeLessThanOrEqual(lines.length);
    expect(location.col, problem.message).toBeGreaterThanOrEqual(1);
    expect(location.col, problem.message).toBeLessThanOrEqual((lines[location.line - 1]?.length ?? 0) + 1);
  }
  expect(result.expansion === undefined).toBe(result.errors.length > 0);
}

/** Values shaped like pipelines, so generated input reaches the later stages, not only the parser. */
const scalar = fc.oneof(
  fc.constantFrom(
    'z-image-turbo',
    'gamma3-fast-i2v',
    '${{ row.name }}',
    '${{ steps.a.output }}',
    '${{ steps.b.outputs[3] }}',
    '${{ x }}',
    '16:9',
    '',
  ),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 20 }),
  fc.boolean(),
  fc.constant(null),
);
const params = fc.dictionary(
  fc.constantFrom(
    'prompt',
    'model',
    'image',
    'num_images',
    'duration',
    'aspect_ratio',
    'mode',
    'scale',
    'text',
    'width',
    'resolution',
    'bogus',
  ),
  scalar,
  { maxKeys: 5 },
);
const step = fc
  .record(
    {
      id: fc.constantFrom('a', 'b', 'c', 'a', '1bad', 'hero'),
      when: fc.oneof(fc.boolean(), fc.constant('${{ row.go }}')),
      op: fc.constantFrom('generate', 'edit', 'video', 'tts', 'upscale', 'remove-bg', 'nope'),
      params,
    },
    { requiredKeys: ['id', 'op', 'params'] },
  )
  .map(({ op, params: p, ...rest }) => ({ ...rest, [op]: p }));
const pipeline = fc.record(
  {
    version: fc.constantFrom(1, 2, '1'),
    name: fc.constantFrom('ok', 'bad name'),
    rows: fc.array(fc.dictionary(fc.constantFrom('name', 'go', 'sku'), scalar, { maxKeys: 3 }), { maxLength: 4 }),
    row_key: fc.constantFrom('sku', 'name', 'none'),
    steps: fc.array(step, { maxLength: 4 }),
    defaults: fc.record({ generate: params }),
  },
  { requiredKeys: [] },
);

describe('validator properties', () => {
  it('never throws on arbitrary text', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 400 }), assertWellBehaved), { numRuns: 300 });
  });

  it('never throws on pipeline-shaped documents, and positions stay inside the file', async () => {
    await fc.assert(
      fc.asyncProperty(pipeline, (value) => assertWellBehaved(stringify(value))),
      { numRuns: 400 },
    );
  });

  it('never throws on the demo with random edits', async () => {
    const edit = fc.record({
      at: fc.nat({ max: DEMO.length }),
      cut: fc.nat({ max: 20 }),
      insert: fc.string({ maxLength: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        let text = DEMO;
        for (const { at, cut, insert } of edits) text = text.slice(0, at) + insert + text.slice(at + cut);
        await assertWellBehaved(text);
      }),
      { numRuns: 400 },
    );
  });
});
