/** The example pipelines' plans, computed by hand from the API reference's prices. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { buildPlan } from '../../src/plan/build-plan.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

async function planOf(name: string) {
  const result = await validatePipelineFile(path.join(ROOT, 'pipelines', name));
  if (!result.expansion) throw new Error(`${name} is invalid`);
  return buildPlan(result.expansion, {
    allowUnpriced: false,
    quotaUsed: { count: 0, source: 'flag' },
    maxCredits: { value: result.expansion.pipeline.maxCredits ?? 0, source: 'pipeline' },
  });
}

describe('example plans', () => {
  it('demo: every operation once', async () => {
    const plan = await planOf('demo.yaml');
    // z-image-turbo 100 x 2 + eta-edit 200 + upscale 100 + remove-bg ~100 + gamma3-fast-i2v 2,000 + tts-alpha 10
    expect(plan.credits).toMatchObject({ total: 2610, estimatedCredits: 100, estimated: true });
    // 6 submits; one video: 24 polls expected, 60 worst
    expect(plan.requests).toMatchObject({ submits: 6, pollsExpected: 24, pollsWorst: 60 });
    expect(plan.refused).toBe(false);
  });

  it('product shoot: 24 products x (photo, print, cutout)', async () => {
    const plan = await planOf('product-shoot.yaml');
    // 24 x (z-image-turbo 100 + upscale 100 + remove-bg ~100)
    expect(plan.credits).toMatchObject({ total: 7200, estimatedCredits: 2400 });
    expect(plan.credits.byRow.get('SH-1022')).toBe(300);
    expect(plan.requests).toMatchObject({ submits: 72, videos: 0, pollsExpected: 0 });
  });

  it('social video: 6 scenes, 5 with a clip', async () => {
    const plan = await planOf('social-video.yaml');
    // still: kappa-2-pro 250 x 6 = 1,500; clip: gamma3-fast-i2v 2,000 x 5 (s04 says video: no) = 10,000;
    // voiceover: beta-tts 100 x 6 = 600
    expect(Object.fromEntries(plan.credits.byStep)).toEqual({ still: 1500, clip: 10000, voiceover: 600 });
    expect(plan.credits).toMatchObject({ total: 12100, estimated: false });
    // expected_seconds 90 at 5 s: 18 polls per clip; worst 60
    expect(plan.requests).toEqual({
      submits: 17,
      videos: 5,
      pollsExpected: 90,
      pollsWorst: 300,
      pollsPerVideoExpected: 18,
      pollsPerVideoWorst: 60,
    });
    expect(plan.skipped.when).toBe(1);
  });
});
