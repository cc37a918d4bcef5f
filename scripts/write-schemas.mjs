// Regenerate the checked-in JSON Schemas from the zod schemas (run by `npm run schemas`).
// test/schema-files.test.ts fails when a checked-in file is stale.
import { writeFileSync } from 'node:fs';
import { pipelineJsonSchema } from '../dist/pipeline/schema/json-schema.js';
import { manifestJsonSchema } from '../dist/manifest/manifest-json-schema.js';

const schemas = {
  'schemas/pipeline.schema.json': pipelineJsonSchema(),
  'schemas/manifest.schema.json': manifestJsonSchema(),
};
for (const [file, schema] of Object.entries(schemas)) {
  writeFileSync(new URL(`../${file}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
