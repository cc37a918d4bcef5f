/** POST /v1/generate: images from a prompt, `num_images` of them, of the requested size. */
import { findModel } from '../../catalog/models.js';
import { promptPng } from '../media/prompt-art.js';
import { type Body, modelOf, optionalInteger, prompt } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';
import { DEFAULT_DIMENSION, GENERATE_DIMENSIONS, NUM_IMAGES_MAX, ULTRA_DIMENSIONS } from '../sandbox-limits.js';
import { type CreateEndpoint, resultUrl } from './endpoint.js';
import { resolutionAndQuality, unitCredits } from './model-pricing.js';

export const generateEndpoint: CreateEndpoint = {
  path: '/v1/generate',
  operation: 'generate',
  async prepare(body: Body, { state }) {
    const text = prompt(body);
    const model = modelOf(body, 'generate');
    const width = dimension(body, 'width', model);
    const height = dimension(body, 'height', model);
    const count = optionalInteger(body, 'num_images', 'invalid_num_images') ?? 1;
    if (count < 1 || count > NUM_IMAGES_MAX)
      throw new SandboxError('invalid_num_images', `num_images must be 1 to ${NUM_IMAGES_MAX}, got ${count}`);
    const tier = resolutionAndQuality(body, model);
    const credits = unitCredits(model, tier) * count;
    return {
      credits,
      chargeNow: true,
      perform: () => ({
        images: Array.from({ length: count }, (_, index) => ({
          url: resultUrl(state, 'image/png', () => promptPng(text, index, width, height)),
        })),
        credits_used: credits,
      }),
    };
  },
};

function dimension(body: Body, field: 'width' | 'height', model: string): number {
  const value = optionalInteger(body, field, 'invalid_dimensions') ?? DEFAULT_DIMENSION;
  const limit = findModel(model)?.id === 'theta-pro-ultra' ? ULTRA_DIMENSIONS : GENERATE_DIMENSIONS;
  if (value < limit.min || value > limit.max || value % limit.multipleOf !== 0) {
    throw new SandboxError(
      'invalid_dimensions',
      `${field} ${value} is not accepted by ${model}: ${limit.min} to ${limit.max} in steps of ${limit.multipleOf}`,
    );
  }
  return value;
}
