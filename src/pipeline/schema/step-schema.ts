/**
 * The schema of one step: an `id`, exactly one operation key with its parameters, and optional
 * `when`, `retries`, `timeout`. Parameter schemas are derived from the catalogue's field table; they
 * check types only: values (models, durations, ratios...) are checked by named rules, which can
 * suggest corrections, and required fields are checked after `defaults:` are merged in.
 */
import * as z from 'zod';
import { modelsFor } from '../../catalog/models.js';
import { type FieldSpec, OPERATION_SPECS, OPERATIONS, type Operation } from '../../catalog/operations.js';
import {
  describeInput,
  durationSchema,
  templatableBoolean,
  templatableInt,
  templatableNumber,
} from './value-schemas.js';

export const STEP_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Values an editor should offer for a field (model IDs, modes, ratios). Only the JSON Schema shows
 * them: validation leaves values to the rules, which can say "did you mean".
 */
export const VALUE_HINTS = new WeakMap<object, readonly string[]>();

function fieldSchema(operation: Operation, name: string, spec: FieldSpec): z.ZodType {
  switch (spec.kind) {
    case 'int':
      return templatableInt(spec.description);
    case 'number':
      return templatableNumber(spec.description);
    default: {
      const schema = z.string().describe(spec.description);
      const values = name === 'model' ? modelsFor(operation).map((model) => model.id) : spec.values;
      if (values) VALUE_HINTS.set(schema, values);
      return schema;
    }
  }
}

export function operationParamsSchema(operation: Operation) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(OPERATION_SPECS[operation].fields)) {
    shape[name] = fieldSchema(operation, name, spec).optional();
  }
  return z.strictObject(shape).describe(`Parameters of POST ${OPERATION_SPECS[operation].path}.`);
}

export const retriesSchema = z
  .number()
  .int()
  .min(0)
  .max(10)
  .describe('Retries after the first attempt for transient failures (timeouts, 5xx, resets). Default 3.');

export const whenSchema = templatableBoolean(
  'Run the step only for rows where this is true: a boolean or a ${{ row.<column> }} template.',
);

/** One optional key per operation, with its parameters: a step's shape, and `defaults:`'s. */
export function operationKeys() {
  return {
    generate: operationParamsSchema('generate').optional(),
    edit: operationParamsSchema('edit').optional(),
    video: operationParamsSchema('video').optional(),
    tts: operationParamsSchema('tts').optional(),
    upscale: operationParamsSchema('upscale').optional(),
    'remove-bg': operationParamsSchema('remove-bg').optional(),
  } satisfies Record<Operation, z.ZodType>;
}

export const stepSchema = z
  .strictObject({
    id: z
      .string()
      .regex(STEP_ID_PATTERN, {
        error: (issue) =>
          `expected a step id: a letter, then letters, digits, "_" or "-" (at most 64), got ${describeInput(issue.input)}`,
      })
      .describe('Unique name of the step; names its output files and is used in ${{ steps.<id>.output }}.'),
    description: z.string().optional(),
    when: whenSchema.optional(),
    retries: retriesSchema.optional(),
    timeout: durationSchema.optional(),
    ...operationKeys(),
  })
  .superRefine((step, ctx) => {
    const present = OPERATIONS.filter((operation) => step[operation] !== undefined);
    if (present.length === 1) return;
    ctx.addIssue({
      code: 'custom',
      path: present.length > 1 ? [present[1] as string] : [],
      message:
        present.length === 0
          ? `a step needs one operation: ${OPERATIONS.join(', ')}`
          : `a step has exactly one operation, this one has ${present.length} (${present.join(', ')})`,
    });
  })
  .describe('One step: an id and exactly one operation.');

export type StepInput = z.output<typeof stepSchema>;
