/**
 * The tolerant alternatives of decisions.md: each place a field may be found, each error-code and
 * message shape, and the error when an answer has none of them (naming the field and request_id).
 */
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { BASE, mockService, resolvedApi, testClient } from '../helpers/api-harness.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

const URL_A = 'https://cdn.media.test/a.png';
const reply = (pathname: string, body: Record<string, unknown>, status = 200) =>
  mockService.use(http.post(`${BASE}${pathname}`, () => HttpResponse.json(body, { status })));
const IMAGE = { kind: 'url', url: URL_A } as const;

describe('image answers', () => {
  it.each([
    ['images: [{url}]', { images: [{ url: URL_A }] }],
    ['image_url', { image_url: URL_A }],
    ['url', { url: URL_A }],
    ['image: {url}', { image: { url: URL_A } }],
  ])('edit reads %s', async (_, body) => {
    reply('/v1/edit', { success: true, request_id: 'r', ...body });
    expect((await testClient().client.edit({ prompt: 'p', model: 'eta-edit', image: IMAGE })).url).toBe(URL_A);
  });

  it.each([
    ['image_url', { image_url: URL_A }],
    ['url', { url: URL_A }],
    ['image.url', { image: { url: URL_A } }],
    ['images[0].url', { images: [{ url: URL_A }] }],
  ])('upscale and remove-bg read %s', async (_, body) => {
    reply('/v1/upscale', { success: true, ...body });
    reply('/v1/remove-bg', { success: true, ...body });
    const { client } = testClient();
    expect((await client.upscale({ image: IMAGE, scale: 2 })).url).toBe(URL_A);
    expect((await client.removeBg({ image: IMAGE })).url).toBe(URL_A);
  });

  it('generate takes images as strings too', async () => {
    reply('/v1/generate', { success: true, images: [URL_A, 'https://cdn.media.test/b.png'] });
    expect((await testClient().client.generate({ prompt: 'p', model: 'eta-v4', num_images: 2 })).urls).toHaveLength(2);
  });
});

describe('video status answers', () => {
  it.each([
    ['video_url', { video_url: URL_A }],
    ['url', { url: URL_A }],
    ['video.url', { video: { url: URL_A } }],
    ['output.url', { output: { url: URL_A } }],
    ['result.video_url', { result: { video_url: URL_A } }],
  ])('reads the URL from %s', async (_, body) => {
    reply('/v1/video/status', { success: true, status: 'completed', ...body });
    expect((await testClient().client.videoStatus('j')).url).toBe(URL_A);
  });

  it.each([
    ['credits_used', { credits_used: 3000 }],
    ['credits', { credits: 3000 }],
    ['cost', { cost: 3000 }],
  ])('reads the credits from %s', async (_, body) => {
    reply('/v1/video/status', { success: true, status: 'completed', video_url: URL_A, ...body });
    expect((await testClient().client.videoStatus('j')).creditsUsed).toBe(3000);
  });

  it('looks first where api.response_paths says', async () => {
    reply('/v1/video/status', {
      success: true,
      status: 'completed',
      data: { video: { href: URL_A } },
      video_url: 'https://cdn.media.test/other.mp4',
    });
    const { client } = testClient({ api: resolvedApi({}, { responsePaths: { video_url: 'data.video.href' } }) });
    expect((await client.videoStatus('j')).url).toBe(URL_A);
  });
});

describe('error answers', () => {
  it.each([
    ['code + message', { success: false, code: 'invalid_model', message: 'no such model' }],
    ['error_code', { success: false, error_code: 'invalid_model', message: 'no such model' }],
    ['error: {code, message}', { success: false, error: { code: 'invalid_model', message: 'no such model' } }],
    ['error as a string', { success: false, error: 'invalid_model', message: 'no such model' }],
  ])('reads the code and message from %s', async (_, body) => {
    reply('/v1/generate', { ...body, request_id: 'req_e' }, 400);
    const error = (await testClient()
      .client.generate({ prompt: 'p', model: 'x', num_images: 1 })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      serviceCode: 'invalid_model',
      serviceMessage: 'no such model',
      requestId: 'req_e',
      kind: 'permanent',
      attempt: 1,
    });
    expect(error.message).toBe(
      'POST /v1/generate: HTTP 400 invalid_model: no such model (the request was refused; fix it before running again; attempt 1, request req_e)',
    );
  });

  it('treats a 200 with success: false as an error', async () => {
    reply('/v1/tts', { success: false, code: 'missing_text', message: 'text is required' });
    await expect(testClient().client.tts({ text: '', model: 'tts-alpha' })).rejects.toMatchObject({
      serviceCode: 'missing_text',
    });
  });
});

describe('an answer that fits no known shape', () => {
  it('is an error naming the field it looked for and the request_id, and is not retried', async () => {
    let calls = 0;
    mockService.use(
      http.post(`${BASE}/v1/upscale`, () => {
        calls++;
        return HttpResponse.json({ success: true, request_id: 'req_odd', picture: { href: URL_A } });
      }),
    );
    const error = (await testClient()
      .client.upscale({ image: IMAGE, scale: 2 })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ serviceCode: 'unexpected_response', requestId: 'req_odd', kind: 'permanent' });
    expect(error.message).toContain(
      'the answer has no image_url: looked for image_url, url, image.url, images[0].url, images[0]',
    );
    expect(error.message).toContain('request req_odd');
    // The work was done and charged: sending it again would pay twice.
    expect(calls).toBe(1);
  });

  it('says so when it has no request_id either', async () => {
    reply('/v1/video', { success: true, job: 'x' });
    const error = (await testClient()
      .client.submitVideo({ prompt: 'p', model: 'gamma3.1', mode: 'text-to-video' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.message).toContain(
      'the answer has no request_id: looked for request_id, requestId, id (and it has no request_id)',
    );
  });
});
