/**
 * A manifest read back: whole and checked (readManifest), or row by row as assetline writes it
 * (readManifestRows), stopping early without reading the rest.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { readManifest, readManifestHead, readManifestRows } from '../../src/manifest/read-manifest.js';
import { writeManifestFile } from '../helpers/manifest-file.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';
import { tempDir } from '../helpers/temp-pipeline.js';

/** The manifest written as the runner writes it. */
function written(manifest: Manifest): Promise<string> {
  return writeManifestFile(path.join(tempDir(), 'manifest.json'), manifest);
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

describe('reading a manifest', () => {
  it('reads the rows of a written manifest back as they were, in order', async () => {
    const manifest = fixtureManifest();
    const file = await written(manifest);
    expect(await readManifest(file)).toEqual(manifest);
    expect(await all(readManifestRows(file))).toEqual(manifest.rows);
  });

  it('reads a manifest without rows, and stops where the reader stops', async () => {
    expect(await all(readManifestRows(await written(fixtureManifest([]))))).toEqual([]);
    const manifest = fixtureManifest();
    const first: string[] = [];
    for await (const row of readManifestRows(await written(manifest))) {
      first.push(row.key);
      if (first.length === 2) break;
    }
    expect(first).toEqual(manifest.rows.slice(0, 2).map((row) => row.key));
  });

  it('says which file is not a manifest as assetline writes it', async () => {
    const file = path.join(tempDir(), 'manifest.json');
    writeFileSync(file, JSON.stringify(fixtureManifest()));
    await expect(all(readManifestRows(file))).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: `${file}: not a manifest as assetline writes it (no rows, or cut short)`,
    });
    expect(await readManifest(path.join(tempDir(), 'none.json'))).toBeUndefined();
  });
});

describe('reading rows that are not rows', () => {
  it('names the file and the row', async () => {
    const file = await written(fixtureManifest());
    const text = readFileSync(file, 'utf8').split('\n');
    const at = text.indexOf('  "rows": [') + 2;
    text[at] = '    {"key":"RUN-2",';
    writeFileSync(file, text.join('\n'));
    await expect(all(readManifestRows(file))).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: expect.stringMatching(/: rows\[1\] is not a manifest row as assetline writes it \(/) as string,
    });
  });
});

describe('reading the head of a manifest', () => {
  it('reads everything but the rows, checked, without reading them', async () => {
    const { rows, ...head } = fixtureManifest();
    expect(rows.length).toBeGreaterThan(0);
    expect(await readManifestHead(await written(fixtureManifest()))).toEqual(head);
    const { rows: none, ...empty } = fixtureManifest([]);
    expect(none).toEqual([]);
    expect(await readManifestHead(await written(fixtureManifest([])))).toEqual(empty);
  });

  it('is undefined for a manifest laid out otherwise (to be read whole)', async () => {
    const file = path.join(tempDir(), 'manifest.json');
    writeFileSync(file, JSON.stringify(fixtureManifest()));
    expect(await readManifestHead(file)).toBeUndefined();
    writeFileSync(file, JSON.stringify(fixtureManifest(), null, 3));
    expect(await readManifestHead(file)).toBeUndefined();
    // Pretty-printed with two spaces: the same head, but the rows not one a line.
    writeFileSync(file, JSON.stringify(fixtureManifest(), null, 2));
    expect(await readManifestHead(file)).toBeUndefined();
    const { rows, ...head } = fixtureManifest([]);
    expect(rows).toEqual([]);
    writeFileSync(file, JSON.stringify(fixtureManifest([]), null, 2));
    expect(await readManifestHead(file)).toEqual(head);
  });

  it('says what the schema refuses in the head', async () => {
    const file = await written({ ...fixtureManifest(), status: 'finished' } as unknown as Manifest);
    await expect(readManifestHead(file)).rejects.toMatchObject({
      exitCode: EXIT.usage,
      message: expect.stringContaining('status: Invalid option') as string,
    });
  });
});
