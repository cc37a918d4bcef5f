/** POST /v1/edit: the source image, visibly changed by the instruction. */
import { editImage } from '../media/image-ops.js';
import { type Body, modelOf, prompt } from '../request-fields.js';
import { type CreateEndpoint, requestImage, resultUrl } from './endpoint.js';
import { resolutionAndQuality, unitCredits } from './model-pricing.js';

export const editEndpoint: CreateEndpoint = {
  path: '/v1/edit',
  operation: 'edit',
  async prepare(body: Body, { state }) {
    const text = prompt(body);
    const model = modelOf(body, 'edit');
    const credits = unitCredits(model, resolutionAndQuality(body, model));
    const source = await requestImage(state, body.image);
    return {
      credits,
      chargeNow: true,
      perform: () => ({
        images: [{ url: resultUrl(state, 'image/png', () => editImage(source, text)) }],
        credits_used: credits,
      }),
    };
  },
};
