/** Reading a request body's fields the way the service checks them, with its error codes. */
import { PROMPT_MAX_CHARS } from '../catalog/limits.js';
import { findModel } from '../catalog/models.js';
import type { Operation } from '../catalog/operations.js';
import { type SandboxErrorCode, SandboxError } from './sandbox-error.js';

export type Body = Readonly<Record<string, unknown>>;

/** A non-empty string, or the given error ("missing_prompt"). */
export function requiredText(body: Body, field: string, missing: SandboxErrorCode): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw new SandboxError(missing, `${field} is required`);
  return value;
}

export function prompt(body: Body): string {
  const value = requiredText(body, 'prompt', 'missing_prompt');
  const length = [...value].length;
  if (length > PROMPT_MAX_CHARS) {
    throw new SandboxError('prompt_too_long', `prompt is ${length} characters; the limit is ${PROMPT_MAX_CHARS}`);
  }
  return value;
}

export function modelOf(body: Body, operation: Operation, fallback?: string): string {
  const value = body.model ?? fallback;
  const model = typeof value === 'string' ? findModel(value) : undefined;
  if (!model || model.operation !== operation) {
    throw new SandboxError(
      'invalid_model',
      `model ${JSON.stringify(value ?? null)} is not a supported ${operation} model`,
    );
  }
  return model.id;
}

export function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SandboxError('invalid_parameter', `${field} must be a string`);
  return value;
}

export function optionalInteger(body: Body, field: string, code: SandboxErrorCode): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new SandboxError(code, `${field} must be an integer`);
  return value;
}
