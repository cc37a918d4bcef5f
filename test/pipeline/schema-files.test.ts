/** Checked-in schemas match the code, and the example pipelines are valid and wired to the schema. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestJsonSchema } from '../../src/manifest/manifest-json-schema.js';
import { pipelineJsonSchema } from '../../src/pipeline/schema/json-schema.js';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('schemas/pipeline.schema.json', () => {
  it('is up to date (run `npm run schemas` after changing the zod schema)', () => {
    const checkedIn = readFileSync(path.join(ROOT, 'schemas/pipeline.schema.json'), 'utf8');
    expect(checkedIn).toBe(`${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`);
  });
});

describe('schemas/manifest.schema.json', () => {
  it('is up to date (run `npm run schemas` after changing the zod schema)', () => {
    const checkedIn = readFileSync(path.join(ROOT, 'schemas/manifest.schema.json'), 'utf8');
    expect(checkedIn).toBe(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
  });
});

describe('example pipelines', () => {
  const examples = readdirSync(path.join(ROOT, 'pipelines')).filter((name) => name.endsWith('.yaml'));

  it('include the demo, a CSV product shoot of 20+ rows and a social-video set', async () => {
    expect(examples).toEqual(expect.arrayContaining(['demo.yaml', 'product-shoot.yaml', 'social-video.yaml']));
    const shoot = await validatePipelineFile(path.join(ROOT, 'pipelines/product-shoot.yaml'));
    expect(shoot.expansion?.counts.rows).toBeGreaterThanOrEqual(20);
  });

  it.each(examples)('%s validates and names the schema for editors', async (name) => {
    const file = path.join(ROOT, 'pipelines', name);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../schemas/pipeline.schema.json',
    );
    const result = await validatePipelineFile(file);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('demo runs every operation once', async () => {
    const result = await validatePipelineFile(path.join(ROOT, 'pipelines/demo.yaml'));
    const operations = [...(result.expansion?.instances() ?? [])].map((instance) => instance.operation).sort();
    expect(operations).toEqual(['edit', 'generate', 'remove-bg', 'tts', 'upscale', 'video']);
  });
});
