/** POST /v1/upscale: the image enlarged by `scale` (1 < scale <= 4, default 2), 100 credits. */
import sharp from 'sharp';
import { UPSCALE_CREDITS } from '../../catalog/models.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import { upscaleImage } from '../media/image-ops.js';
import type { Body } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';
import { ULTRA_DIMENSIONS } from '../sandbox-limits.js';
import { type CreateEndpoint, requestImage, resultUrl } from './endpoint.js';

/** The largest side the sandbox will produce: theta-pro-ultra's 8K. */
const MAX_SIDE = ULTRA_DIMENSIONS.max;

export const upscaleEndpoint: CreateEndpoint = {
  path: '/v1/upscale',
  operation: 'upscale',
  async prepare(body: Body, { state }) {
    const { minExclusive, max, default: fallback } = OPEN_ITEMS.upscaleScale.sandbox;
    const scale = body.scale ?? fallback;
    if (typeof scale !== 'number' || !(scale > minExclusive && scale <= max)) {
      throw new SandboxError(
        'invalid_scale',
        `scale must be more than ${minExclusive} and at most ${max}, got ${JSON.stringify(scale)}`,
      );
    }
    const source = await requestImage(state, body.image);
    const { width = 0, height = 0 } = await sharp(source).metadata();
    if (Math.max(width, height) * scale > MAX_SIDE) {
      throw new SandboxError(
        'invalid_scale',
        `a ${width}x${height} image scaled by ${scale} passes the ${MAX_SIDE} px limit`,
      );
    }
    return {
      credits: UPSCALE_CREDITS,
      chargeNow: true,
      perform: () => ({
        image_url: resultUrl(state, 'image/png', () => upscaleImage(source, scale)),
        credits_used: UPSCALE_CREDITS,
      }),
    };
  },
};
