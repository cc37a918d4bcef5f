/** Validation of whole pipelines: stages together, rows files, local images, per-row checks. */
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { lines, PNG_1X1, pipelineWith, tempDir, validateYaml } from '../helpers/temp-pipeline.js';

const GENERATE = '  - id: hero\n    generate: { model: z-image-turbo, prompt: "a ${{ row.name }} shoe" }\n';
const FROM_CSV = 'rows: { file: products.csv }\nrow_key: sku\n';

describe('a valid pipeline', () => {
  it('expands rows x steps', async () => {
    const result = await validateYaml(pipelineWith(GENERATE, 'rows:\n  - { name: a }\n  - { name: b }\n'));
    expect(lines(result)).toEqual([]);
    expect(result.expansion?.counts).toEqual({ rows: 2, steps: 1, instances: 2, skippedWhen: 0, skippedUpstream: 0 });
  });

  it('runs its steps once without rows', async () => {
    const result = await validateYaml(pipelineWith('  - id: v\n    tts: { text: hello }\n'));
    expect(result.expansion?.counts.instances).toBe(1);
  });

  it('reports a missing file without throwing', async () => {
    const result = await validatePipelineFile(path.join(tempDir(), 'nope.yaml'), { displayPath: 'nope.yaml' });
    expect(lines(result)).toEqual(['nope.yaml: cannot read the pipeline: no such file']);
  });
});

describe('every problem is reported, not only the first', () => {
  it('keeps checking past schema errors in unrelated sections and in steps', async () => {
    const yaml = [
      'version: 1',
      'name: bad name',
      'api: { plan: premium }',
      'rows:',
      '  - { sku: A }',
      'row_key: sku',
      'steps:',
      '  - id: hero',
      '    generate: { model: z-image-turbo2, prompt: "${{ row.nmae }}", num_image: 2 }',
      '  - id: big',
      '    upscale: { image: "${{ steps.her.output }}", scale: 0 }',
      '',
    ].join('\n');
    const result = await validateYaml(yaml);
    expect(lines(result).sort()).toEqual(
      [
        'pipeline.yaml:2:7: name: expected a name of letters, digits, ".", "_" or "-" (it names the output folder), got the text "bad name"',
        'pipeline.yaml:3:14: api.plan: expected one of "free", "pro", "enterprise", got the text "premium"',
        'pipeline.yaml:9:24: step "hero", generate.model: unknown generate model "z-image-turbo2"; did you mean "z-image-turbo"?',
        'pipeline.yaml:9:49: step "hero", generate.prompt: unknown column "nmae" in ${{ row.nmae }}: the rows have sku',
        'pipeline.yaml:9:67: unknown field "num_image" in step "hero", generate; did you mean "num_images"?',
        'pipeline.yaml:11:24: step "big", upscale.image: unknown step "her" in ${{ steps.her.output }}; did you mean "hero"?',
        'pipeline.yaml:11:57: step "big", upscale.scale: expected a positive multiplier such as 2 or 4, got 0 (invalid_scale)',
      ].sort(),
    );
    expect(result.expansion).toBeUndefined();
  });
});

describe('defaults', () => {
  it('fill a step, and a bad default is reported once, where it is written', async () => {
    const yaml = pipelineWith(
      '  - id: a\n    generate: { prompt: x }\n  - id: b\n    generate: { prompt: y }\n',
      'defaults:\n  generate: { model: z-imag-turbo }\n',
    );
    const result = await validateYaml(yaml);
    expect(lines(result)).toEqual([
      'pipeline.yaml:4:22: defaults.generate.model: unknown generate model "z-imag-turbo"; did you mean "z-image-turbo"?',
    ]);
  });

  it('give way to the step', async () => {
    const yaml = pipelineWith(
      '  - id: a\n    generate: { prompt: x, model: eta-v4 }\n',
      'defaults:\n  generate: { model: nope }\n',
    );
    const result = await validateYaml(yaml);
    expect(lines(result)).toEqual([]);
    expect([...(result.expansion?.instances() ?? [])]).toMatchObject([
      { operation: 'generate', params: { model: 'eta-v4' } },
    ]);
  });

  it('do not excuse a missing required field', async () => {
    const result = await validateYaml(pipelineWith('  - id: a\n    generate: { model: eta-v4 }\n'));
    expect(lines(result)).toEqual([
      'pipeline.yaml:5:5: step "a", generate: missing required field "prompt" (set it in the step or in defaults.generate)',
    ]);
  });
});

describe('limits on rendered values, per row', () => {
  it('name the row key, the step and the field of a prompt a long cell pushes past 4,000', async () => {
    const csv = `sku,name\nA1,short\nA2,${'x'.repeat(4000)}\n`;
    const result = await validateYaml(pipelineWith(GENERATE, FROM_CSV), { 'products.csv': csv });
    expect(lines(result)).toEqual([
      'products.csv:row 3: row "A2", step "hero", generate.prompt: is 4,007 characters long; the limit is 4,000',
    ]);
  });

  it('show five rows of a repeated problem and count the rest', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `R${i},${'y'.repeat(4001)}`).join('\n');
    const result = await validateYaml(pipelineWith(GENERATE, FROM_CSV), { 'products.csv': `sku,name\n${rows}\n` });
    const printed = lines(result);
    expect(printed).toHaveLength(6);
    expect(printed.slice(0, 5).map((line) => /^products\.csv:row (\d+):/.exec(line)?.[1])).toEqual([
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(printed[5]).toBe(
      'products.csv:row 2: 25 more rows with the same problem (step "hero", generate.prompt) not shown',
    );
  });

  it('turn spreadsheet text into numbers, and check them per model', async () => {
    const csv = 'sku,seconds\nA,6\nB,six\nC,5\n';
    const steps = '  - id: clip\n    video: { model: gamma3-fast, prompt: p, duration: "${{ row.seconds }}" }\n';
    const result = await validateYaml(pipelineWith(steps, FROM_CSV), { 'products.csv': csv });
    expect(lines(result)).toEqual([
      'products.csv:row 3: row "B", step "clip", video.duration: expected an integer, got the text "six"',
      'products.csv:row 4: row "C", step "clip", video.duration: 5 s is not offered by "gamma3-fast": allowed 4, 6, 8 seconds',
    ]);
  });

  it('check an output index against a per-row num_images', async () => {
    const csv = 'sku,n\nA,3\nB,1\n';
    const steps =
      '  - id: hero\n    generate: { model: eta-v4, prompt: p, num_images: "${{ row.n }}" }\n' +
      '  - id: big\n    upscale: { image: "${{ steps.hero.outputs[2] }}" }\n';
    const result = await validateYaml(pipelineWith(steps, FROM_CSV), { 'products.csv': csv });
    expect(lines(result)).toEqual([
      'products.csv:row 3: row "B", step "big", upscale.image: steps.hero.outputs[2] is past the 1 image step "hero" makes for this row',
    ]);
  });

  it('leave rows alone where when: skips the step', async () => {
    const csv = 'sku,video,seconds\nA,yes,6\nB,no,banana\n';
    const steps =
      '  - id: clip\n    when: "${{ row.video }}"\n    video: { model: gamma3-fast, prompt: p, duration: "${{ row.seconds }}" }\n';
    const result = await validateYaml(pipelineWith(steps, FROM_CSV), { 'products.csv': csv });
    expect(lines(result)).toEqual([]);
    expect(result.expansion?.counts).toMatchObject({ instances: 1, skippedWhen: 1 });
  });
});

describe('row keys', () => {
  it('must be present and unique, also as folder names and regardless of case', async () => {
    const csv = 'sku,name\nA1,a\nA1,b\n,c\na/b,d\na_b,e\nX,f\nx,g\n';
    const result = await validateYaml(pipelineWith(GENERATE, FROM_CSV), { 'products.csv': csv });
    expect(lines(result)).toEqual([
      'products.csv:row 3: row key: "A1" appears again (first at products.csv:row 2); row keys must be unique',
      'products.csv:row 4: row key: the "sku" cell is empty; every row needs a key (it names the row\'s output folder)',
      'products.csv:row 6: row key: "a_b" and "a/b" (products.csv:row 5) would share the output folder "a_b"',
      'products.csv:row 8: row key: "x" and "X" (products.csv:row 7) would share the output folder "x"',
    ]);
  });
});

describe('local images', () => {
  const UPSCALE = (image: string) => `  - id: big\n    upscale: { image: "${image}" }\n`;

  it('accept a real image next to the pipeline, whatever its name', async () => {
    const result = await validateYaml(pipelineWith(UPSCALE('shoe.jpg')), { 'shoe.jpg': PNG_1X1 });
    expect(lines(result)).toEqual([]);
    const [instance] = [...(result.expansion?.instances() ?? [])];
    expect(instance?.operation === 'upscale' && instance.params.image).toMatchObject({
      kind: 'file',
      shown: 'shoe.jpg',
    });
  });

  it('refuse missing files and files that are not images', async () => {
    const result = await validateYaml(
      pipelineWith(UPSCALE('missing.png') + UPSCALE('notes.png').replace('id: big', 'id: big2')),
      {
        'notes.png': 'just text',
      },
    );
    expect(lines(result)).toEqual([
      'pipeline.yaml:5:23: step "big", upscale.image: file "missing.png" does not exist (paths are relative to the pipeline file)',
      'pipeline.yaml:7:23: step "big2", upscale.image: file "notes.png" is not a PNG, JPEG, WebP or GIF image (judged by its content, not its name)',
    ]);
  });

  it('refuse images over 10 MB before anything is sent', async () => {
    const dir = tempDir();
    const fd = openSync(path.join(dir, 'huge.png'), 'w');
    writeSync(fd, PNG_1X1);
    writeSync(fd, Buffer.alloc(1), 0, 1, 10_000_000);
    closeSync(fd);
    const yaml = pipelineWith(UPSCALE(path.join(dir, 'huge.png')));
    const result = await validateYaml(yaml);
    expect(lines(result)[0]).toMatch(
      /file ".*huge\.png" is 10,000,001 bytes; the limit is 10,000,000 bytes \(image_too_large\)$/,
    );
  });

  it('check a path taken from a row, once per distinct file', async () => {
    const csv = 'sku,photo\nA,a.png\nB,b.png\nC,a.png\n';
    const result = await validateYaml(pipelineWith(UPSCALE('${{ row.photo }}'), FROM_CSV), {
      'products.csv': csv,
      'a.png': PNG_1X1,
    });
    expect(lines(result)).toEqual([
      'products.csv:row 3: row "B", step "big", upscale.image: file "b.png" does not exist (paths are relative to the pipeline file)',
    ]);
  });

  it('refuse plain http URLs', async () => {
    const result = await validateYaml(pipelineWith(UPSCALE('http://example.com/a.png')));
    expect(lines(result)).toEqual([
      'pipeline.yaml:5:23: step "big", upscale.image: the service takes https URLs only, got "http://example.com/a.png"',
    ]);
  });
});

describe('pipeline rules', () => {
  it('need a quota for enterprise and warn when pricing overrides a published price', async () => {
    const yaml = pipelineWith(
      '  - id: v\n    tts: { text: hi }\n',
      'api: { plan: enterprise }\npricing: { tts-alpha: 12, remove-bg: 90 }\n',
    );
    const result = await validateYaml(yaml);
    expect(lines(result)).toEqual([
      'pipeline.yaml:3:14: api.plan: enterprise has a custom daily quota: set api.quota to the requests per 24 hours of your contract',
      'pipeline.yaml:4:12: warning: pricing.tts-alpha: 12 credits overrides the published price of 10',
    ]);
  });
});

describe('files shared between rows', () => {
  it('are read relative to the pipeline, not the working directory', async () => {
    const dir = tempDir();
    const sub = path.join(dir, 'nested');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'rows.csv'), 'sku,name\nA,a\n');
    writeFileSync(path.join(sub, 'p.yaml'), pipelineWith(GENERATE, 'rows: { file: rows.csv }\nrow_key: sku\n'));
    const result = await validatePipelineFile(path.join(sub, 'p.yaml'), { displayPath: 'nested/p.yaml' });
    expect(lines(result)).toEqual([]);
  });
});
