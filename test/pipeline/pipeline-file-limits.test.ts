import { describe, expect, it } from 'vitest';
import { MAX_PIPELINE_BYTES } from '../../src/pipeline/read-pipeline-text.js';
import { decodeUtf8 } from '../../src/pipeline/encoding/strict-utf8.js';
import { validatePipelineText } from '../../src/pipeline/validate-pipeline.js';
import { lines, pipelineWith, validateYaml } from '../helpers/temp-pipeline.js';

const STEP = '  - id: a\n    generate: { model: z-image-turbo, prompt: "x" }\n';

describe('pipeline file size', () => {
  it('refuses a file over the limit at once, pointing to a rows file', async () => {
    const head = pipelineWith(STEP);
    const big = `${head}# ${'x'.repeat(MAX_PIPELINE_BYTES - head.length - 2)}\n`;
    expect(big.length).toBe(MAX_PIPELINE_BYTES + 1);
    const started = Date.now();
    const result = await validateYaml(big);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.errors.map((e) => e.code)).toEqual(['file-too-large']);
    expect(lines(result)[0]).toContain('(5,242,881 bytes); a pipeline file may be at most 5.0 MB (5,242,880 bytes)');
    expect(lines(result)[0]).toContain('rows: { file: rows.csv }');
  });

  it('reads a file exactly at the limit', async () => {
    const head = pipelineWith(STEP);
    const result = await validateYaml(`${head}# ${'x'.repeat(MAX_PIPELINE_BYTES - head.length - 3)}\n`);
    expect(result.errors.map((e) => e.code)).not.toContain('file-too-large');
  });
});

describe('pipeline file encoding', () => {
  it('refuses Latin-1 bytes with the line and column', async () => {
    const text = Buffer.concat([
      Buffer.from(pipelineWith('  - id: a\n    generate: { model: z-image-turbo, prompt: "caf')),
      Buffer.from([0xe9]),
      Buffer.from('" }\n'),
    ]);
    const result = await validateYaml(text as unknown as string);
    expect(lines(result)).toEqual([
      'pipeline.yaml:5:51: the pipeline is not UTF-8: byte 0xE9 here is not valid UTF-8; save the file as UTF-8',
    ]);
  });

  it('decodes valid UTF-8 and places the first invalid byte after multi-byte characters', () => {
    expect(decodeUtf8(Buffer.from('é\n€𝄞'))).toEqual({ ok: true, text: 'é\n€𝄞' });
    expect(decodeUtf8(Buffer.concat([Buffer.from('ab\n€é'), Buffer.from([0xc3])]))).toEqual({
      ok: false,
      line: 2,
      col: 3,
      byte: 0xc3,
    });
    // An overlong form of "/" and a lone surrogate are not UTF-8 either.
    expect(decodeUtf8(Buffer.from([0x61, 0xc0, 0xaf]))).toMatchObject({ ok: false, col: 2 });
    expect(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toMatchObject({ ok: false, col: 1 });
  });
});

describe('pipeline text from the library', () => {
  it('applies the same size limit to validatePipelineText', async () => {
    const result = await validatePipelineText(`version: 1\n# ${'é'.repeat(MAX_PIPELINE_BYTES / 2)}\n`, {
      file: 'p.yaml',
      dir: '/',
    });
    expect(result.errors.map((e) => e.code)).toEqual(['file-too-large']);
  });
});
