/** POST /v1/remove-bg: a PNG of the image with its background made transparent (100 credits). */
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import { removeBackground } from '../media/image-ops.js';
import type { Body } from '../request-fields.js';
import { type CreateEndpoint, requestImage, resultUrl } from './endpoint.js';

export const removeBgEndpoint: CreateEndpoint = {
  path: '/v1/remove-bg',
  operation: 'remove-bg',
  async prepare(body: Body, { state }) {
    const credits = OPEN_ITEMS.removeBgCredits.sandbox;
    const source = await requestImage(state, body.image);
    return {
      credits,
      chargeNow: true,
      perform: () => ({
        image_url: resultUrl(state, 'image/png', () => removeBackground(source)),
        credits_used: credits,
      }),
    };
  },
};
