/**
 * The manifest's JSON Schema, generated from the zod schema the runner builds it with, so the two
 * cannot drift; checked in as schemas/manifest.schema.json for scripts that read manifests.
 */
import * as z from 'zod';
import { manifestSchema } from './manifest-schema.js';

export const MANIFEST_SCHEMA_ID = 'https://assetline.dev/schemas/manifest.schema.json';

export function manifestJsonSchema(): object {
  const schema = z.toJSONSchema(manifestSchema, { target: 'draft-7', io: 'output' });
  return { ...schema, $id: MANIFEST_SCHEMA_ID, title: 'assetline run manifest' };
}
