import { describe, expect, it } from 'vitest';
import { decodeRowsFile } from '../../src/pipeline/encoding/decode-rows-file.js';
import { lines, pipelineWith, validateYaml } from '../helpers/temp-pipeline.js';

const STEP = '  - id: a\n    generate: { model: z-image-turbo, prompt: "${{ row.name }}" }\n';
/** "sku,name\nA1,café\n" as Excel on Windows saves it (windows-1252). */
const LATIN1_CSV = Buffer.concat([Buffer.from('sku,name\nA1,caf'), Buffer.from([0xe9]), Buffer.from('\n')]);

describe('rows file encoding', () => {
  it('refuses a Latin-1 CSV read as UTF-8 at the line of the bad byte, suggesting rows.encoding', async () => {
    const result = await validateYaml(pipelineWith(STEP, 'rows: { file: rows.csv }\n'), { 'rows.csv': LATIN1_CSV });
    expect(result.errors.map((e) => e.code)).toEqual(['rows-encoding']);
    expect(lines(result)[0]).toMatch(/^rows\.csv:2:7: byte 0xE9 here is not valid UTF-8; .*encoding: windows-1252/);
  });

  it('reads the same file with encoding: windows-1252 (or latin1)', async () => {
    for (const encoding of ['windows-1252', 'latin1']) {
      const result = await validateYaml(pipelineWith(STEP, `rows: { file: rows.csv, encoding: ${encoding} }\n`), {
        'rows.csv': LATIN1_CSV,
      });
      expect(lines(result)).toEqual([]);
    }
    expect(decodeRowsFile(LATIN1_CSV, 'windows-1252')).toEqual({ ok: true, text: 'sku,name\nA1,café\n' });
    // windows-1252, unlike ISO 8859-1, has the euro sign at 0x80.
    expect(decodeRowsFile(Buffer.from([0x80]), 'latin1')).toEqual({ ok: true, text: '€' });
  });

  it('reads UTF-16 by its byte-order mark and refuses UTF-16 without one', () => {
    const text = 'sku,name\nA1,café\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    expect(decodeRowsFile(le, 'utf-16')).toEqual({ ok: true, text });
    expect(decodeRowsFile(be, 'utf-16')).toEqual({ ok: true, text });
    expect(decodeRowsFile(Buffer.from(text, 'utf16le'), 'utf-16')).toMatchObject({
      ok: false,
      message: expect.stringContaining('byte-order mark') as unknown,
    });
  });

  it('refuses an unknown encoding in the schema', async () => {
    const result = await validateYaml(pipelineWith(STEP, 'rows: { file: rows.csv, encoding: ebcdic }\n'), {
      'rows.csv': 'sku,name\nA1,a\n',
    });
    expect(result.errors.length).toBeGreaterThan(0);
    expect(lines(result).join('\n')).toContain('rows');
  });
});

describe('windows-1252', () => {
  it('maps 0x80 to 0x9F to the euro sign, curly quotes and dashes, and the rest as ISO 8859-1 (0x81, unassigned, is U+FFFD)', () => {
    const bytes = Buffer.from([0x80, 0x93, 0x94, 0x96, 0x97, 0x99, 0x81, 0x41, 0xe9, 0xff]);
    expect(decodeRowsFile(bytes, 'windows-1252')).toEqual({ ok: true, text: '€“”–—™\uFFFDAéÿ' });
  });
});
