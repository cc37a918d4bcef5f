/**
 * The pipeline's version (the manifest's `pipeline_version`): the same for the same pipeline and
 * rows file wherever they are checked out, different when either changes.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pipelineVersion } from '../../src/pipeline/pipeline-version.js';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const PIPELINE = `version: 1
name: t
rows: { file: rows.csv }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe \${{ row.sku }}" }
`;

async function versionOf(pipeline: string, rows?: string): Promise<string | undefined> {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.yaml'), pipeline);
  if (rows !== undefined) writeFileSync(path.join(dir, 'rows.csv'), rows);
  return (await validatePipelineFile(path.join(dir, 'p.yaml'))).expansion?.pipeline.version;
}

describe('the pipeline version', () => {
  it('is the first 16 hex digits of the SHA-256 of the pipeline text, then its rows file', () => {
    expect(pipelineVersion('a')).toMatch(/^[0-9a-f]{16}$/);
    // sha256("a") = ca978112ca1bbdca...
    expect(pipelineVersion('a')).toBe('ca978112ca1bbdca');
    expect(pipelineVersion('a', '')).not.toBe(pipelineVersion('a'));
    expect(pipelineVersion('ab', 'c')).not.toBe(pipelineVersion('a', 'bc'));
  });

  it('is the same checked out anywhere: line endings and a byte-order mark do not count', () => {
    expect(pipelineVersion('a\r\nb\r\n', '\uFEFFsku\r\nA\r\n')).toBe(pipelineVersion('a\nb\n', 'sku\nA\n'));
  });

  it('follows the pipeline file and its rows file', async () => {
    const rows = 'sku\nA1\nB2\n';
    const version = await versionOf(PIPELINE, rows);
    expect(version).toBe(pipelineVersion(PIPELINE, rows));
    expect(await versionOf(PIPELINE, rows)).toBe(version);
    expect(await versionOf(PIPELINE, `${rows}C3\n`)).not.toBe(version);
    expect(await versionOf(PIPELINE.replace('shoe', 'boot'), rows)).not.toBe(version);
    // Inline rows are part of the pipeline's text.
    const inline = PIPELINE.replace('rows: { file: rows.csv }', 'rows: [{ sku: A1 }]');
    expect(await versionOf(inline)).toBe(pipelineVersion(inline));
  });
});
