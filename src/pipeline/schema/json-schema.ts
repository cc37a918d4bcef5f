/**
 * The pipeline's JSON Schema, generated from the zod schema so the two cannot drift; checked in as
 * schemas/pipeline.schema.json for editors. A step's "exactly one operation" rule is a zod refinement,
 * which JSON Schema cannot see, so it is added here as a oneOf.
 */
import * as z from 'zod';
import { OPERATIONS } from '../../catalog/operations.js';
import { pipelineSchema } from './pipeline-schema.js';
import { stepSchema, VALUE_HINTS } from './step-schema.js';

export const PIPELINE_SCHEMA_ID = 'https://assetline.dev/schemas/pipeline.schema.json';

export function pipelineJsonSchema(): object {
  const schema = z.toJSONSchema(pipelineSchema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema === stepSchema) {
        ctx.jsonSchema.oneOf = OPERATIONS.map((operation) => ({ required: [operation] }));
      }
      const values = VALUE_HINTS.get(ctx.zodSchema);
      if (values) {
        // Offer the known values, and still accept a per-row template.
        delete ctx.jsonSchema.type;
        ctx.jsonSchema.anyOf = [
          { type: 'string', enum: [...values] },
          { type: 'string', pattern: '\\$\\{\\{' },
        ];
      }
    },
  });
  return { ...schema, $id: PIPELINE_SCHEMA_ID, title: 'assetline pipeline' };
}
