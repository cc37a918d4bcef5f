/** The credit tables of a manifest: by model, step and row; only real models get a model line. */
import { describe, expect, it } from 'vitest';
import type { ManifestStep } from '../../src/manifest/manifest-schema.js';
import { tallyCredits } from '../../src/manifest/manifest-totals.js';

const step = (fields: Pick<ManifestStep, 'step' | 'operation' | 'model' | 'status'>, credits = 0): ManifestStep =>
  ({
    ...fields,
    reason: fields.status === 'skipped' ? 'when' : null,
    credits: { planned: credits, used: credits },
    files: [],
  }) as unknown as ManifestStep;

describe('tallyCredits', () => {
  it('gives a step skipped by when: (no model) no by-model line, and keeps operations without a model', () => {
    const tally = tallyCredits([
      {
        key: 'A',
        folder: 'A',
        steps: [
          step({ step: 'hero', operation: 'generate', model: 'z-image-turbo', status: 'done' }, 100),
          step({ step: 'big', operation: 'upscale', model: null, status: 'done' }, 100),
          step({ step: 'teaser', operation: 'video', model: null, status: 'skipped' }),
        ],
      },
    ] as never);
    expect(Object.keys(tally.by_model).sort()).toEqual(['upscale', 'z-image-turbo']);
    expect(Object.keys(tally.by_step).sort()).toEqual(['big', 'hero', 'teaser']);
    expect(tally.used).toBe(200);
  });
});
