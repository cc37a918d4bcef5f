/**
 * How messages name a step field: `step "hero", generate.prompt` where the step sets it, or
 * `defaults.generate.prompt` where it comes from defaults (so a bad default is reported once, not
 * once per step that uses it).
 */
import type { DataPath } from './yaml/yaml-locator.js';

export function fieldLabel(stepId: string, operation: string, field: string, path: DataPath): string {
  return path[0] === 'defaults' ? `defaults.${operation}.${field}` : `step "${stepId}", ${operation}.${field}`;
}
