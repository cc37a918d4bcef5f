/** upscale: the scale is a positive multiplier (its supported range is not published). */
import { numeric, type StepRule } from './step-rule.js';

export const scalePositive: StepRule = {
  code: 'scale-positive',
  operations: ['upscale'],
  reads: ['scale'],
  check: (params) => {
    const scale = numeric(params, 'scale');
    if (scale === undefined || scale > 0) return undefined;
    return { field: 'scale', message: `expected a positive multiplier such as 2 or 4, got ${scale} (invalid_scale)` };
  },
};
