/** The catalogue says what the reference says: prices, durations, ratios, limits, plans. */
import { describe, expect, it } from 'vitest';
import {
  IMAGE_MAX_BYTES,
  PLAN_DAILY_REQUESTS,
  PROMPT_MAX_CHARS,
  TEXT_MAX_CHARS,
  VIDEO_POLL_MAX_ATTEMPTS,
} from '../../src/catalog/limits.js';
import {
  allowsDuration,
  EDIT_MODELS,
  findModel,
  GENERATE_MODELS,
  TTS_MODELS,
  UPSCALE_CREDITS,
  VIDEO_MODELS,
} from '../../src/catalog/models.js';

const prices = (models: readonly { id: string; credits: number | null }[]) =>
  Object.fromEntries(models.map((m) => [m.id, m.credits]));

describe('catalogue', () => {
  it('prices generate and edit models as published (null = "varies")', () => {
    expect(prices(GENERATE_MODELS)).toEqual({
      'z-image-turbo': 100,
      'lambda-light': 240,
      'kappa-2-pro': 250,
      'eta-v4': 200,
      'eta-v4.5': 800,
      'theta-pro': 800,
      'theta-pro-ultra': 1000,
      'iota-2': null,
    });
    expect(prices(EDIT_MODELS)).toEqual({
      'theta-edit': 240,
      'eta-edit': 200,
      'theta-pro-edit': 800,
      'eta-v4.5-edit': 800,
      'theta-pro-edit-ultra': 1000,
      'iota-2-edit': null,
    });
    expect(prices(TTS_MODELS)).toEqual({ 'tts-alpha': 10, 'beta-tts': 100 });
    expect(UPSCALE_CREDITS).toBe(100);
  });

  it('has every video model with its price, durations and ratios', () => {
    const table = VIDEO_MODELS.map((m) => [m.id, m.mode, m.credits, m.durations, m.aspectRatios?.join(' ') ?? null]);
    expect(table).toEqual([
      ['gamma3.1', 'text-to-video', 3000, { kind: 'list', values: [4, 6, 8] }, '16:9 9:16'],
      ['gamma3-fast', 'text-to-video', 2000, { kind: 'list', values: [4, 6, 8] }, '16:9 9:16'],
      ['delta-2', 'text-to-video', 3500, { kind: 'list', values: [4, 8, 12] }, '16:9 9:16'],
      ['delta-2-pro', 'text-to-video', 6000, { kind: 'list', values: [4, 8, 12] }, '16:9 9:16'],
      ['beta-v2.5-turbo-pro', 'text-to-video', 1500, { kind: 'list', values: [5, 10] }, '16:9 9:16 1:1'],
      ['beta-v2.6-pro', 'text-to-video', 5500, { kind: 'list', values: [5, 10, 16] }, '16:9 9:16 1:1'],
      ['epsilon-2.5', 'text-to-video', 3500, { kind: 'list', values: [5, 10] }, '16:9 9:16 1:1'],
      ['zeta-v1.5-pro-t2v', 'text-to-video', 2600, { kind: 'range', min: 4, max: 12 }, '16:9 9:16 1:1'],
      ['gamma3.1-i2v', 'image-to-video', 3500, { kind: 'list', values: [4, 6, 8] }, null],
      ['gamma3-fast-i2v', 'image-to-video', 2000, { kind: 'list', values: [4, 6, 8] }, null],
      ['beta-v2.5-turbo-pro-i2v', 'image-to-video', 1500, { kind: 'list', values: [5, 10] }, null],
      ['epsilon-2.5-i2v', 'image-to-video', 1500, { kind: 'range', min: 5, max: 10 }, null],
      ['zeta-v1.5-pro-i2v', 'image-to-video', 1500, { kind: 'range', min: 4, max: 12 }, null],
    ]);
  });

  it('states the limits and quotas', () => {
    expect([PROMPT_MAX_CHARS, TEXT_MAX_CHARS, IMAGE_MAX_BYTES, VIDEO_POLL_MAX_ATTEMPTS]).toEqual([
      4000, 5000, 10_000_000, 60,
    ]);
    expect(PLAN_DAILY_REQUESTS).toEqual({ free: 100, pro: 1000, enterprise: null });
  });

  it('answers lookups and duration questions', () => {
    expect(findModel('eta-edit')?.operation).toBe('edit');
    expect(findModel('nope')).toBeUndefined();
    expect(allowsDuration({ kind: 'range', min: 4, max: 12 }, 7)).toBe(true);
    expect(allowsDuration({ kind: 'range', min: 4, max: 12 }, 7.5)).toBe(false);
    expect(allowsDuration({ kind: 'list', values: [5, 10] }, 6)).toBe(false);
  });
});
