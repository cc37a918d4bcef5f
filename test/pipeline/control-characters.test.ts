import { describe, expect, it } from 'vitest';
import { controlCharacterFindings } from '../../src/pipeline/rules/control-characters.js';
import { lines, pipelineWith, validateYaml } from '../helpers/temp-pipeline.js';

const STEP = '  - id: a\n    generate: { model: z-image-turbo, prompt: "${{ row.name }}" }\n';

describe('control characters in values sent', () => {
  it('refuses a NUL from a CSV cell, naming the row and the field', async () => {
    const result = await validateYaml(pipelineWith(STEP, 'rows: { file: rows.csv }\n'), {
      'rows.csv': 'sku,name\nA1,fine\nB2,bad\u0000name\n',
    });
    expect(lines(result)).toEqual([
      'rows.csv:row 3: row 2, step "a", generate.prompt: contains a control character (U+0000, NUL) at character 4; only tab and line breaks are allowed in text sent to the service',
    ]);
  });

  it('allows tab, line feed and carriage return', async () => {
    const result = await validateYaml(pipelineWith(STEP, 'rows: { file: rows.csv }\n'), {
      'rows.csv': 'sku,name\nA1,"tab\there\r\nand a new line"\n',
    });
    expect(lines(result)).toEqual([]);
  });

  it('refuses a control character written in the pipeline itself, at its line', async () => {
    const result = await validateYaml(
      pipelineWith('  - id: a\n    generate: { model: z-image-turbo, prompt: "bell\\a" }\n'),
    );
    expect(lines(result)).toEqual([
      'pipeline.yaml:5:47: step "a", generate.prompt: contains a control character (U+0007) at character 5; only tab and line breaks are allowed in text sent to the service',
    ]);
  });

  it('checks every string and list item of the given fields', () => {
    expect(controlCharacterFindings({ a: 'x\u001by', b: ['ok', '\u007f'], c: 'skip\u0000' }, ['a', 'b'])).toEqual([
      expect.objectContaining({
        field: 'a',
        message: expect.stringContaining('(U+001B, ESC) at character 2') as unknown,
      }),
      expect.objectContaining({ field: 'b[1]', message: expect.stringContaining('(U+007F, DEL)') as unknown }),
    ]);
  });
});
