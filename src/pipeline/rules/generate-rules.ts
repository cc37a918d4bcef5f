/** generate: how many images, and what sizes (checked against limits: only when the pipeline sets them). */
import type { DimensionLimit } from '../checked-pipeline.js';
import { type Finding, numeric, type StepRule, text } from './step-rule.js';

export const numImages: StepRule = {
  code: 'num-images',
  operations: ['generate'],
  reads: ['num_images'],
  check: (params, { limits }) => {
    const count = numeric(params, 'num_images');
    if (count === undefined) return undefined;
    if (count < 1) return { field: 'num_images', message: `expected at least 1, got ${count}` };
    if (limits.maxNumImages !== undefined && count > limits.maxNumImages) {
      return {
        field: 'num_images',
        message: `is ${count}; limits.max_num_images allows at most ${limits.maxNumImages}`,
      };
    }
    return undefined;
  },
};

export const dimensions: StepRule = {
  code: 'dimensions',
  operations: ['generate'],
  reads: ['model', 'width', 'height'],
  check: (params, { limits }) => {
    const findings: Finding[] = [];
    const model = text(params, 'model');
    const limit = (model === undefined ? undefined : limits.dimensionsByModel.get(model)) ?? limits.dimensions;
    const source =
      model !== undefined && limits.dimensionsByModel.has(model)
        ? `limits.dimensions_by_model["${model}"]`
        : 'limits.dimensions';
    for (const field of ['width', 'height'] as const) {
      const pixels = numeric(params, field);
      if (pixels === undefined) continue;
      if (pixels < 1) findings.push({ field, message: `expected a positive number of pixels, got ${pixels}` });
      else if (limit) {
        const problem = outsideLimit(pixels, limit);
        if (problem) findings.push({ field, message: `${pixels} ${problem} (${source})` });
      }
    }
    return findings;
  },
};

function outsideLimit(value: number, limit: DimensionLimit): string | undefined {
  if (limit.min !== undefined && value < limit.min) return `is below the minimum ${limit.min}`;
  if (limit.max !== undefined && value > limit.max) return `is above the maximum ${limit.max}`;
  if (limit.multipleOf !== undefined && value % limit.multipleOf !== 0)
    return `is not a multiple of ${limit.multipleOf}`;
  return undefined;
}
