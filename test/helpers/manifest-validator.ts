/**
 * Checks a manifest against the checked-in schemas/manifest.schema.json with a JSON Schema
 * validator (not zod), as a script reading manifests would: what the runner writes must fit what
 * we publish.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';

const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../schemas/manifest.schema.json');

const validate = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));

/** Throws with every violation when `manifest` does not fit the published schema. */
export function assertPublishedManifest(manifest: unknown, where: string): void {
  if (validate(manifest)) return;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  throw new Error(`${where} does not fit schemas/manifest.schema.json:\n${problems.join('\n')}`);
}

export function assertPublishedManifestFile(file: string): void {
  assertPublishedManifest(JSON.parse(readFileSync(file, 'utf8')), file);
}
