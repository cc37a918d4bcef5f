/**
 * A step's parameter values, coerced: the literal ones once per step, the templated ones per row.
 * Which rules run once and which run per row follows from which fields are templates.
 */
import { OPERATION_SPECS } from '../catalog/operations.js';
import type { CheckedStep } from './checked-pipeline.js';
import { coerceValue, type ParamValue } from './params/coerce-value.js';
import type { Params, StepRule } from './rules/step-rule.js';
import { STEP_RULES } from './rules/step-rules.js';
import { type CellValue, renderTemplate } from './template/render-template.js';

export interface CoercionError {
  readonly field: string;
  readonly message: string;
}

/** What the checks of one step need, prepared once. */
export interface StepPlan {
  readonly step: CheckedStep;
  /** Literal fields and step outputs, coerced. */
  readonly staticValues: Readonly<Record<string, ParamValue>>;
  readonly staticErrors: readonly CoercionError[];
  /** Fields rendered per row. */
  readonly templated: readonly string[];
  /** Rules whose fields are all literal: run once. */
  readonly staticRules: readonly StepRule[];
  /** Rules that read a templated field: run per row. */
  readonly rowRules: readonly StepRule[];
}

export function planStep(step: CheckedStep, baseDir: string): StepPlan {
  const staticValues: Record<string, ParamValue> = {};
  const staticErrors: CoercionError[] = [];
  const templated: string[] = [];
  const specs = OPERATION_SPECS[step.operation].fields;
  for (const [field, { value }] of step.fields) {
    if (value.kind === 'template') {
      templated.push(field);
    } else if (value.kind === 'output') {
      staticValues[field] = { kind: 'output', step: value.step, index: value.index };
    } else if (typeof value.value !== 'boolean') {
      const coerced = coerceValue(specs[field]?.kind ?? 'string', value.value, baseDir);
      if ('error' in coerced) staticErrors.push({ field, message: coerced.error });
      else staticValues[field] = coerced.value;
    }
  }
  const applicable = STEP_RULES.filter((rule) => rule.operations.includes(step.operation));
  const isRowRule = (rule: StepRule) => rule.reads.some((field) => templated.includes(field));
  return {
    step,
    staticValues,
    staticErrors,
    templated,
    staticRules: applicable.filter((rule) => !isRowRule(rule)),
    rowRules: applicable.filter(isRowRule),
  };
}

/** The step's values for one row: the literal ones plus the rendered templates. */
export function rowValues(
  plan: StepPlan,
  cell: (column: string) => CellValue,
  baseDir: string,
): { values: Params; errors: CoercionError[] } {
  if (plan.templated.length === 0) return { values: plan.staticValues, errors: [] };
  const values: Record<string, ParamValue> = {};
  for (const field in plan.staticValues) values[field] = plan.staticValues[field] as ParamValue;
  const errors: CoercionError[] = [];
  const specs = OPERATION_SPECS[plan.step.operation].fields;
  for (const field of plan.templated) {
    const compiled = plan.step.fields.get(field)?.value;
    if (compiled?.kind !== 'template') continue;
    const coerced = coerceValue(specs[field]?.kind ?? 'string', renderTemplate(compiled.template, cell), baseDir);
    if ('error' in coerced) errors.push({ field, message: coerced.error });
    else values[field] = coerced.value;
  }
  return { values, errors };
}
