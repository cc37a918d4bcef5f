/**
 * Turn a field's value (as written, or rendered from a row) into what the request needs: numbers
 * from spreadsheet text, image inputs from strings. Returns an error message instead of throwing.
 */
import type { FieldKind } from '../../catalog/operations.js';
import { describeInput } from '../schema/value-schemas.js';
import { classifyImage, type ImageInput } from './image-input.js';

export type ParamValue = string | number | ImageInput;

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function coerceValue(
  kind: FieldKind,
  raw: string | number,
  baseDir: string,
): { value: ParamValue } | { error: string } {
  switch (kind) {
    case 'int': {
      if (typeof raw === 'number')
        return Number.isInteger(raw) ? { value: raw } : { error: `expected an integer, got ${describeInput(raw)}` };
      const text = raw.trim();
      return INTEGER.test(text) ? { value: Number(text) } : { error: `expected an integer, got ${describeInput(raw)}` };
    }
    case 'number': {
      if (typeof raw === 'number') return { value: raw };
      const text = raw.trim();
      return NUMBER.test(text) ? { value: Number(text) } : { error: `expected a number, got ${describeInput(raw)}` };
    }
    case 'image': {
      const image = classifyImage(String(raw), baseDir);
      return 'error' in image ? { error: image.error } : { value: image };
    }
    default:
      return { value: String(raw) };
  }
}
