/** Each named step rule on its own, with the values it reads after coercion. */
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/catalog/operations.js';
import type { ResolvedLimits } from '../../../src/pipeline/checked-pipeline.js';
import { dimensions, numImages } from '../../../src/pipeline/rules/generate-rules.js';
import { ImageFileInspector } from '../../../src/pipeline/rules/image-file-inspector.js';
import { imageInput } from '../../../src/pipeline/rules/image-rules.js';
import { modelForOperation, resolutionAndQuality } from '../../../src/pipeline/rules/model-rules.js';
import type { Finding, Params, StepRule } from '../../../src/pipeline/rules/step-rule.js';
import { characterCount, promptLength, textLength, ttsPlainText } from '../../../src/pipeline/rules/text-rules.js';
import { scalePositive } from '../../../src/pipeline/rules/upscale-rules.js';
import { videoAspectRatio, videoDuration, videoMode } from '../../../src/pipeline/rules/video-rules.js';

const NO_LIMITS: ResolvedLimits = {
  maxNumImages: undefined,
  dimensions: undefined,
  dimensionsByModel: new Map(),
  videoImageMaxBytes: 10_000_000,
};

function check(rule: StepRule, operation: Operation, params: Params, limits: ResolvedLimits = NO_LIMITS): Finding[] {
  const found = rule.check(params, { operation, limits, files: new ImageFileInspector() });
  return found === undefined ? [] : Array.isArray(found) ? [...found] : [found as Finding];
}

describe('model-for-operation', () => {
  it('accepts each operation its own models', () => {
    expect(check(modelForOperation, 'generate', { model: 'theta-pro-ultra' })).toEqual([]);
    expect(check(modelForOperation, 'edit', { model: 'iota-2-edit' })).toEqual([]);
    expect(check(modelForOperation, 'video', { model: 'zeta-v1.5-pro-i2v' })).toEqual([]);
    expect(check(modelForOperation, 'tts', { model: 'beta-tts' })).toEqual([]);
  });

  it('suggests the closest model for a typo', () => {
    expect(check(modelForOperation, 'video', { model: 'gamma3-fst' })[0]?.message).toBe(
      'unknown video model "gamma3-fst"; did you mean "gamma3-fast"?',
    );
  });

  it('says which operation a model belongs to', () => {
    const [finding] = check(modelForOperation, 'generate', { model: 'theta-edit' });
    expect(finding?.message).toMatch(
      /^"theta-edit" is an edit model, not a generate model; generate takes z-image-turbo, /,
    );
  });

  it('lists the models when nothing is close', () => {
    expect(check(modelForOperation, 'tts', { model: 'polly' })[0]?.message).toBe(
      'unknown tts model "polly"; tts takes tts-alpha, beta-tts',
    );
  });
});

describe('resolution-quality', () => {
  it('allows them with iota-2 and iota-2-edit only', () => {
    expect(check(resolutionAndQuality, 'generate', { model: 'iota-2', resolution: '4k', quality: 'high' })).toEqual([]);
    expect(check(resolutionAndQuality, 'edit', { model: 'iota-2-edit', quality: 'low' })).toEqual([]);
    expect(check(resolutionAndQuality, 'generate', { model: 'eta-v4', resolution: '2k' })).toEqual([
      { field: 'resolution', message: 'is accepted only with iota-2, not with "eta-v4"' },
    ]);
    expect(check(resolutionAndQuality, 'edit', { model: 'theta-edit', quality: 'high' })[0]?.message).toContain(
      'iota-2-edit',
    );
  });

  it('checks their values', () => {
    expect(check(resolutionAndQuality, 'generate', { model: 'iota-2', resolution: '8k', quality: 'hihg' })).toEqual([
      // 1k, 2k and 4k are all one edit away: no guess.
      { field: 'resolution', message: 'expected one of 1k, 2k, 4k, got "8k"' },
      { field: 'quality', message: 'expected one of low, medium, high, got "hihg"; did you mean "high"?' },
    ]);
  });
});

describe('text limits', () => {
  it('counts characters, not UTF-16 units', () => {
    expect(characterCount('👟'.repeat(3))).toBe(3);
    expect(check(promptLength, 'generate', { prompt: '👟'.repeat(4000) })).toEqual([]);
    expect(check(promptLength, 'generate', { prompt: 'x'.repeat(4001) })[0]?.message).toBe(
      'is 4,001 characters long; the limit is 4,000',
    );
  });

  it('reports empty prompts and texts with the service code', () => {
    expect(check(promptLength, 'edit', { prompt: '   ' })[0]?.message).toContain('missing_prompt');
    expect(check(textLength, 'tts', { text: '' })[0]?.message).toContain('missing_text');
  });

  it('limits tts text to 5,000 characters', () => {
    expect(check(textLength, 'tts', { text: 'x'.repeat(5000) })).toEqual([]);
    expect(check(textLength, 'tts', { text: 'x'.repeat(5001) })[0]?.message).toBe(
      'is 5,001 characters long; the limit is 5,000 (text_too_long)',
    );
  });

  it('warns about markup in speech text', () => {
    expect(check(ttsPlainText, 'tts', { text: '<speak>Hello</speak>' })[0]).toMatchObject({ severity: 'warning' });
    expect(check(ttsPlainText, 'tts', { text: 'Size < 10 and > 2' })).toEqual([]);
  });
});

describe('generate numbers', () => {
  it('needs at least one image, and respects a configured maximum', () => {
    expect(check(numImages, 'generate', { num_images: 0 })[0]?.message).toBe('expected at least 1, got 0');
    const limits = { ...NO_LIMITS, maxNumImages: 4 };
    expect(check(numImages, 'generate', { num_images: 4 }, limits)).toEqual([]);
    expect(check(numImages, 'generate', { num_images: 5 }, limits)[0]?.message).toBe(
      'is 5; limits.max_num_images allows at most 4',
    );
  });

  it('checks sizes only against configured limits, per model first', () => {
    expect(check(dimensions, 'generate', { model: 'eta-v4', width: 999_999 })).toEqual([]);
    expect(check(dimensions, 'generate', { width: -5 })[0]?.message).toContain('positive');
    const limits: ResolvedLimits = {
      ...NO_LIMITS,
      dimensions: { min: 256, max: 2048, multipleOf: 64 },
      dimensionsByModel: new Map([['theta-pro-ultra', { max: 8192 }]]),
    };
    expect(check(dimensions, 'generate', { model: 'eta-v4', width: 4096, height: 1000 }, limits)).toEqual([
      { field: 'width', message: '4096 is above the maximum 2048 (limits.dimensions)' },
      { field: 'height', message: '1000 is not a multiple of 64 (limits.dimensions)' },
    ]);
    expect(check(dimensions, 'generate', { model: 'theta-pro-ultra', width: 8192 }, limits)).toEqual([]);
  });
});

describe('video', () => {
  const hero = { kind: 'output', step: 'hero', index: 0 } as const;

  it('infers the mode from the image and requires the image for image-to-video', () => {
    expect(check(videoMode, 'video', { model: 'gamma3-fast-i2v', image: hero })).toEqual([]);
    expect(check(videoMode, 'video', { model: 'gamma3-fast', prompt: 'p' })).toEqual([]);
    expect(check(videoMode, 'video', { model: 'gamma3-fast', mode: 'image-to-video' })).toEqual([
      {
        field: 'model',
        message: '"gamma3-fast" is a text-to-video model, but this step is image-to-video; use "gamma3-fast-i2v"',
      },
    ]);
    expect(check(videoMode, 'video', { mode: 'image-to-video' })).toEqual([
      { field: 'image', message: 'image-to-video needs a start image: set image (missing_image)' },
    ]);
  });

  it('needs an image for an image-to-video model, and suggests its text-to-video twin', () => {
    expect(check(videoMode, 'video', { model: 'gamma3-fast-i2v', prompt: 'p' })).toEqual([
      {
        field: 'image',
        message: '"gamma3-fast-i2v" is an image-to-video model: set image to the start image (missing_image)',
      },
    ]);
    expect(check(videoMode, 'video', { model: 'zeta-v1.5-pro-i2v', mode: 'text-to-video' })).toEqual([
      {
        field: 'mode',
        message: 'is text-to-video, but "zeta-v1.5-pro-i2v" is an image-to-video model; use "zeta-v1.5-pro-t2v"',
      },
    ]);
    expect(check(videoMode, 'video', { model: 'epsilon-2.5-i2v', mode: 'image-to-video', image: hero })).toEqual([]);
  });

  it('suggests the image-to-video twin of a text-to-video model', () => {
    expect(check(videoMode, 'video', { model: 'gamma3.1', image: hero })).toEqual([
      {
        field: 'model',
        message: '"gamma3.1" is a text-to-video model, but this step is image-to-video; use "gamma3.1-i2v"',
      },
    ]);
  });

  it('rejects an unknown mode', () => {
    expect(check(videoMode, 'video', { mode: 'image2video' })[0]?.message).toContain('invalid_mode');
  });

  it('checks durations per model, lists and ranges', () => {
    expect(check(videoDuration, 'video', { model: 'delta-2', duration: 12 })).toEqual([]);
    expect(check(videoDuration, 'video', { model: 'delta-2', duration: 6 })[0]?.message).toBe(
      '6 s is not offered by "delta-2": allowed 4, 8, 12 seconds',
    );
    expect(check(videoDuration, 'video', { model: 'zeta-v1.5-pro-t2v', duration: 7 })).toEqual([]);
    expect(check(videoDuration, 'video', { model: 'epsilon-2.5-i2v', duration: 11 })[0]?.message).toContain('5 to 10');
  });

  it('errs on unknown ratios and warns when the model falls back', () => {
    expect(check(videoAspectRatio, 'video', { model: 'gamma3.1', aspect_ratio: '4:3' })[0]?.message).toBe(
      'expected one of 16:9, 9:16, 1:1, got "4:3"',
    );
    expect(check(videoAspectRatio, 'video', { model: 'gamma3.1', aspect_ratio: '1:1' })[0]).toMatchObject({
      severity: 'warning',
    });
    // Image-to-video ratios are not published: no warning.
    expect(check(videoAspectRatio, 'video', { model: 'gamma3.1-i2v', aspect_ratio: '1:1' })).toEqual([]);
  });
});

describe('upscale and images', () => {
  it('needs a positive scale', () => {
    expect(check(scalePositive, 'upscale', { scale: 0 })[0]?.message).toContain('invalid_scale');
    expect(check(scalePositive, 'upscale', { scale: 1.5 })).toEqual([]);
  });

  it('checks data URIs by type and decoded size', () => {
    const png = { kind: 'data-uri', uri: '', mediaType: 'image/png', bytes: 10_000_000, content: 'image/png' } as const;
    expect(check(imageInput, 'edit', { image: png })).toEqual([]);
    expect(check(imageInput, 'edit', { image: { ...png, bytes: 10_000_001 } })[0]?.message).toContain(
      'image_too_large',
    );
    expect(check(imageInput, 'upscale', { image: { ...png, mediaType: 'image/bmp' } })[0]?.message).toContain(
      'invalid_image_format',
    );
  });

  it('checks data URIs by content: no image is an error, another image type a warning', () => {
    const png = { kind: 'data-uri', uri: '', mediaType: 'image/png', bytes: 3, content: undefined } as const;
    expect(check(imageInput, 'edit', { image: png })[0]?.message).toBe(
      "the data URI's data is not a PNG, JPEG, WebP or GIF image (judged by its content, not its declared image/png)",
    );
    expect(check(imageInput, 'edit', { image: { ...png, content: 'image/jpeg' } })[0]).toMatchObject({
      severity: 'warning',
      message: 'the data URI says image/png but its data is image/jpeg; the service may go by either',
    });
  });

  it('gives exact bytes when the rounded sizes are equal', () => {
    const png = { kind: 'data-uri', uri: '', mediaType: 'image/png', bytes: 10_000_001, content: 'image/png' } as const;
    expect(check(imageInput, 'edit', { image: png })[0]?.message).toBe(
      'the data URI image is 10,000,001 bytes; the limit is 10,000,000 bytes (image_too_large)',
    );
    expect(check(imageInput, 'edit', { image: { ...png, bytes: 10_100_000 } })[0]?.message).toBe(
      'the data URI image is 10.1 MB; the limit is 10.0 MB (image_too_large)',
    );
  });

  it('uses the configured limit for video start images', () => {
    const big = {
      kind: 'data-uri',
      uri: '',
      mediaType: 'image/jpeg',
      bytes: 6_000_000,
      content: 'image/jpeg',
    } as const;
    const limits = { ...NO_LIMITS, videoImageMaxBytes: 5_000_000 };
    expect(check(imageInput, 'video', { image: big }, limits)[0]?.message).toBe(
      'the data URI image is 6.0 MB; the limit is 5.0 MB (image_too_large)',
    );
    expect(check(imageInput, 'edit', { image: big }, limits)).toEqual([]);
  });
});
