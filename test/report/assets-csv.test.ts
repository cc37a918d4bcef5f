/**
 * assets.csv as a spreadsheet reads it: a byte-order mark, one line per row in the sheet's order,
 * the row's own cells as they came (quotes, commas, line breaks and accents survive a round trip),
 * one column per file a step made, and what each row cost.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { writeAssetsCsv } from '../../src/report/assets-csv.js';
import { writeManifestFile } from '../helpers/manifest-file.js';
import { fixtureManifest, fixtureStep, png } from '../helpers/manifest-fixture.js';
import { tempDir, validateYaml } from '../helpers/temp-pipeline.js';

const PIPELINE = `version: 1
name: sheet
rows: { file: rows.json }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "\${{ row.name }}", num_images: 2 }
  - id: voice
    when: "\${{ row.voiced }}"
    tts: { text: "\${{ row.name }}" }
`;

const ROWS = JSON.stringify([
  { sku: 'Z-9', name: 'Élan "Pro", 2\nlines', price: 89.5, voiced: true },
  { sku: 'A-1', name: 'Zoë', price: null, voiced: false },
]);

async function assetsOf(rows: Parameters<typeof fixtureManifest>[0]): Promise<{ text: Buffer; lines: string[][] }> {
  const validated = await validateYaml(PIPELINE, { 'rows.json': ROWS });
  if (!validated.expansion) throw new Error(validated.errors.map((e) => e.message).join('\n'));
  const dir = tempDir();
  const manifestFile = await writeManifestFile(path.join(dir, 'runs', 'r.json'), fixtureManifest(rows));
  const file = await writeAssetsCsv(manifestFile, dir, validated.expansion);
  expect(file).toBe(path.join(dir, 'assets.csv'));
  const text = readFileSync(file);
  return { text, lines: parse(text, { bom: true }) as string[][] };
}

describe('assets.csv', () => {
  it('has one line per row in sheet order, the row’s cells as they came, a column per file, and the credits', async () => {
    const { text, lines } = await assetsOf([
      {
        key: 'Z-9',
        folder: 'z-9',
        steps: [
          fixtureStep({
            step: 'hero',
            status: 'done',
            files: [png('z-9/hero.png'), png('z-9/hero-2.png')],
            credits: { planned: 200, used: 200, paid_total: 200 },
          }),
          fixtureStep({ step: 'voice', status: 'failed', credits: { planned: 10, used: 0, paid_total: 0 } }),
        ],
      },
      {
        key: 'A-1',
        folder: 'a-1',
        steps: [
          fixtureStep({
            step: 'hero',
            status: 'cached',
            files: [png('a-1/hero.png')],
            credits: { planned: 200, used: 0, paid_total: 200 },
          }),
          fixtureStep({ step: 'voice', status: 'skipped', credits: { planned: 0, used: 0 } }),
        ],
      },
    ]);
    expect([...text.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines).toEqual([
      [
        'row',
        'sku',
        'name',
        'price',
        'voiced',
        'hero_status',
        'hero',
        'hero_2',
        'voice_status',
        'voice',
        'credits_run',
        'credits_total',
      ],
      [
        'Z-9',
        'Z-9',
        'Élan "Pro", 2\nlines',
        '89.5',
        'true',
        'done',
        'z-9/hero.png',
        'z-9/hero-2.png',
        'failed',
        '',
        '200',
        '200',
      ],
      ['A-1', 'A-1', 'Zoë', '', 'false', 'cached', 'a-1/hero.png', '', 'skipped', '', '0', '200'],
    ]);
  });

  it('has only the header when the manifest has no rows', async () => {
    const { lines } = await assetsOf([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[0]).toBe('row');
  });
});
