/**
 * A named check of one step's parameter values. Rules see values after defaults and coercion
 * (numbers are numbers, images are classified). A rule declares the fields it reads: when all of
 * them are written literally it runs once for the step; when one comes from a row template it runs
 * for every row, on the rendered values.
 */
import type { Operation } from '../../catalog/operations.js';
import type { ResolvedLimits } from '../checked-pipeline.js';
import type { ParamValue } from '../params/coerce-value.js';
import type { Severity } from '../problem.js';
import type { ImageFileInspector } from './image-file-inspector.js';

export type Params = Readonly<Record<string, ParamValue | undefined>>;

export interface RuleContext {
  /** The operation of the step being checked. */
  readonly operation: Operation;
  readonly limits: ResolvedLimits;
  readonly files: ImageFileInspector;
}

export interface Finding {
  /** The field the finding is about; its position is reported. */
  readonly field: string;
  readonly message: string;
  readonly severity?: Severity;
}

export interface StepRule {
  readonly code: string;
  readonly operations: readonly Operation[];
  readonly reads: readonly string[];
  check(params: Params, context: RuleContext): Finding | readonly Finding[] | undefined;
}

export function text(params: Params, field: string): string | undefined {
  const value = params[field];
  return typeof value === 'string' ? value : undefined;
}

export function numeric(params: Params, field: string): number | undefined {
  const value = params[field];
  return typeof value === 'number' ? value : undefined;
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
