/** A manifest written to a file as the runner writes it: its head, then each row one line. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { manifestTextOf, rowLine } from '../../src/manifest/manifest-json.js';
import type { Manifest } from '../../src/manifest/manifest-schema.js';

export async function writeManifestFile(file: string, manifest: Manifest): Promise<string> {
  const { rows, ...head } = manifest;
  const none = (async function* () {})();
  let text = '';
  for await (const piece of manifestTextOf(
    head,
    { lines: none },
    rows.map((row) => rowLine(row)),
  ))
    text += typeof piece === 'string' ? piece : Buffer.from(piece).toString('utf8');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
