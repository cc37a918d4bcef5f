/**
 * Every row of the reference's error table, on every endpoint it names, with its exact status and
 * code; every answer JSON with a request_id.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { call, DEMO_KEY } from '../helpers/sandbox-http.js';

const BROKE = 'sk-sandbox-broke-000000000000';
const REVOKED = 'sk-sandbox-revoked-0000000000';
const TINY = 'sk-sandbox-tiny-0000000000000';

let sandbox: Sandbox;
let png: string;
let gif: string;
let notAnImage: string;
let tooLarge: string;

beforeAll(async () => {
  sandbox = await startSandbox({
    config: {
      seed: 5,
      keys: [
        { key: DEMO_KEY, name: 'demo', plan: 'pro', credits: 1_000_000 },
        { key: BROKE, name: 'broke', plan: 'pro', credits: 50 },
        { key: REVOKED, name: 'revoked', plan: 'pro', credits: 1000, revoked: true },
        { key: TINY, name: 'tiny', plan: 'pro', credits: 1000, quota: 2 },
      ],
    },
  });
  const pngBytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
    .png()
    .toBuffer();
  png = `data:image/png;base64,${pngBytes.toString('base64')}`;
  gif = `data:image/gif;base64,${Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64')}`;
  notAnImage = `data:image/png;base64,${Buffer.from('this is not a picture').toString('base64')}`;
  const big = Buffer.alloc(10_000_001);
  pngBytes.copy(big);
  tooLarge = `data:image/png;base64,${big.toString('base64')}`;
});
afterAll(() => sandbox.stop());

type Row = readonly [string, string, () => Record<string, unknown>, number, string];

const ROWS: readonly Row[] = [
  ['missing_prompt (generate)', '/v1/generate', () => ({ model: 'z-image-turbo' }), 400, 'missing_prompt'],
  ['missing_prompt (video)', '/v1/video', () => ({ model: 'gamma3.1', prompt: '  ' }), 400, 'missing_prompt'],
  ['missing_prompt (edit)', '/v1/edit', () => ({ model: 'eta-edit', image: png }), 400, 'missing_prompt'],
  ['invalid_model (generate)', '/v1/generate', () => ({ prompt: 'p', model: 'theta-edit' }), 400, 'invalid_model'],
  ['invalid_model (tts)', '/v1/tts', () => ({ text: 't', model: 'polly' }), 400, 'invalid_model'],
  ['invalid_model (video)', '/v1/video', () => ({ prompt: 'p', model: 'z-image-turbo' }), 400, 'invalid_model'],
  [
    'invalid_model (edit)',
    '/v1/edit',
    () => ({ prompt: 'p', model: 'z-image-turbo', image: png }),
    400,
    'invalid_model',
  ],
  [
    'invalid_dimensions (below the range)',
    '/v1/generate',
    () => ({ prompt: 'p', model: 'eta-v4', width: 128 }),
    400,
    'invalid_dimensions',
  ],
  [
    'invalid_dimensions (not a multiple of 64)',
    '/v1/generate',
    () => ({ prompt: 'p', model: 'eta-v4', height: 1000 }),
    400,
    'invalid_dimensions',
  ],
  [
    'invalid_dimensions (8K only for theta-pro-ultra)',
    '/v1/generate',
    () => ({ prompt: 'p', model: 'theta-pro', width: 4096 }),
    400,
    'invalid_dimensions',
  ],
  ['missing_text', '/v1/tts', () => ({}), 400, 'missing_text'],
  ['text_too_long', '/v1/tts', () => ({ text: 'x'.repeat(5001) }), 400, 'text_too_long'],
  ['invalid_voice_id', '/v1/tts', () => ({ text: 't', model: 'beta-tts', voice_id: 'alloy' }), 400, 'invalid_voice_id'],
  ['invalid_mode', '/v1/video', () => ({ prompt: 'p', model: 'gamma3.1', mode: 'sideways' }), 400, 'invalid_mode'],
  [
    'missing_image (video, image-to-video)',
    '/v1/video',
    () => ({ prompt: 'p', model: 'gamma3.1-i2v', mode: 'image-to-video' }),
    400,
    'missing_image',
  ],
  ['missing_image (edit)', '/v1/edit', () => ({ prompt: 'p', model: 'eta-edit' }), 400, 'missing_image'],
  ['missing_image (upscale)', '/v1/upscale', () => ({ scale: 2 }), 400, 'missing_image'],
  [
    'invalid_image_format (edit, a GIF)',
    '/v1/edit',
    () => ({ prompt: 'p', model: 'eta-edit', image: gif }),
    400,
    'invalid_image_format',
  ],
  [
    'invalid_image_format (upscale, not an image)',
    '/v1/upscale',
    () => ({ image: notAnImage }),
    400,
    'invalid_image_format',
  ],
  [
    'invalid_image_format (upscale, plain http)',
    '/v1/upscale',
    () => ({ image: 'http://example.com/a.png' }),
    400,
    'invalid_image_format',
  ],
  [
    'image_too_large (edit)',
    '/v1/edit',
    () => ({ prompt: 'p', model: 'eta-edit', image: tooLarge }),
    400,
    'image_too_large',
  ],
  ['image_too_large (upscale)', '/v1/upscale', () => ({ image: tooLarge }), 400, 'image_too_large'],
  ['invalid_scale (above 4)', '/v1/upscale', () => ({ image: png, scale: 5 }), 400, 'invalid_scale'],
  ['invalid_scale (1 is not an upscale)', '/v1/upscale', () => ({ image: png, scale: 1 }), 400, 'invalid_scale'],
  ['invalid_scale (not a number)', '/v1/upscale', () => ({ image: png, scale: 'big' }), 400, 'invalid_scale'],
];

describe('the error table', () => {
  it.each(ROWS)('%s', async (_, path, body, status, code) => {
    const answer = await call(sandbox, path, body());
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      success: false,
      code,
      message: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
    });
  });

  const CREATE = [
    ['/v1/generate', { prompt: 'p', model: 'eta-v4' }],
    ['/v1/edit', { prompt: 'p', model: 'eta-edit', image: 'https://cdn.example.com/a.png' }],
    ['/v1/video', { prompt: 'p', model: 'gamma3.1' }],
    ['/v1/tts', { text: 'hello', model: 'beta-tts' }],
    ['/v1/upscale', { image: 'https://cdn.example.com/a.png' }],
    ['/v1/remove-bg', { image: 'https://cdn.example.com/a.png' }],
  ] as const;

  it.each(CREATE)('invalid_api_key (401) on %s: no key, an unknown key, a revoked key', async (path, body) => {
    for (const key of [null, 'sk-nobody-000000000', REVOKED]) {
      const answer = await call(sandbox, path, body, { key });
      expect(answer).toMatchObject({
        status: 401,
        body: { success: false, code: 'invalid_api_key', request_id: expect.any(String) },
      });
    }
  });

  it('invalid_api_key (401) on both video status forms', async () => {
    expect(await call(sandbox, '/v1/video/req_x', undefined, { key: null })).toMatchObject({ status: 401 });
    expect(await call(sandbox, '/v1/video/status', { request_id: 'req_x' }, { key: 'sk-bad-key-000' })).toMatchObject({
      status: 401,
    });
  });

  it.each(CREATE)('insufficient_credits (402) on %s, and nothing is charged', async (path, body) => {
    const answer = await call(sandbox, path, body, { key: BROKE });
    // tts-alpha (10) would fit 50 credits; beta-tts (100) does not.
    expect(answer).toMatchObject({ status: 402, body: { success: false, code: 'insufficient_credits' } });
    expect(sandbox.accounts.find(BROKE)?.credits).toBe(50);
  });

  it('rate_limit_exceeded (429) once the quota is spent, with Retry-After in seconds', async () => {
    expect((await call(sandbox, '/v1/tts', { text: 'one' }, { key: TINY })).status).toBe(200);
    expect((await call(sandbox, '/v1/video/status', { request_id: 'req_none' }, { key: TINY })).status).toBe(404);
    const refused = await call(sandbox, '/v1/tts', { text: 'three' }, { key: TINY });
    expect(refused).toMatchObject({ status: 429, body: { success: false, code: 'rate_limit_exceeded' } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
  });

  it('answers JSON with a request_id for unknown paths, wrong methods and bad JSON', async () => {
    expect(await call(sandbox, '/v2/generate', { prompt: 'p' })).toMatchObject({
      status: 404,
      body: { code: 'not_found', request_id: expect.any(String) },
    });
    expect(await call(sandbox, '/v1/generate', undefined, { method: 'GET' })).toMatchObject({
      status: 405,
      body: { code: 'method_not_allowed' },
    });
    expect(await call(sandbox, '/v1/generate', '{"prompt": ')).toMatchObject({
      status: 400,
      body: { code: 'invalid_json' },
    });
  });

  it('names its own codes where the reference has none: prompt_too_long, invalid_num_images, invalid_duration', async () => {
    expect((await call(sandbox, '/v1/generate', { prompt: 'x'.repeat(4001), model: 'eta-v4' })).body.code).toBe(
      'prompt_too_long',
    );
    expect((await call(sandbox, '/v1/generate', { prompt: 'p', model: 'eta-v4', num_images: 5 })).body.code).toBe(
      'invalid_num_images',
    );
    expect((await call(sandbox, '/v1/video', { prompt: 'p', model: 'delta-2', duration: 6 })).body.code).toBe(
      'invalid_duration',
    );
  });
});
