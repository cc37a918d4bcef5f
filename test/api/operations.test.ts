/** Each typed call: the request it sends (body, headers) and what it makes of the documented answer. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { BASE, KEY, mockService, testClient } from '../helpers/api-harness.js';
import { PNG_1X1, tempDir } from '../helpers/temp-pipeline.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

/** Answer `reply` to `path` and keep what was sent. */
function capture(pathname: string, reply: Record<string, unknown>, method: 'post' | 'get' = 'post') {
  const seen: { body: unknown; headers: Headers; url: string }[] = [];
  mockService.use(
    http[method](`${BASE}${pathname}`, async ({ request }) => {
      seen.push({
        body: method === 'post' ? await request.json() : undefined,
        headers: request.headers,
        url: request.url,
      });
      return HttpResponse.json(reply);
    }),
  );
  return seen;
}

const url = (name: string) => `https://cdn.media.test/${name}`;

describe('generate', () => {
  it('sends the prompt, model and set options with the key and the idempotency key', async () => {
    const seen = capture('/v1/generate', {
      success: true,
      images: [{ url: url('a.png') }, { url: url('b.png') }],
      request_id: 'req_1',
      credits_used: 200,
    });
    const { client } = testClient();
    const result = await client.generate(
      { prompt: 'a shoe', model: 'z-image-turbo', num_images: 2, width: 512 },
      { idempotencyKey: 'idem-1' },
    );
    expect(result).toEqual({ requestId: 'req_1', creditsUsed: 200, urls: [url('a.png'), url('b.png')] });
    expect(seen[0]?.body).toEqual({ prompt: 'a shoe', model: 'z-image-turbo', num_images: 2, width: 512 });
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen[0]?.headers.get('idempotency-key')).toBe('idem-1');
    expect(seen[0]?.headers.get('content-type')).toBe('application/json');
  });
});

describe('edit, upscale, remove-bg', () => {
  it('edit sends a URL image as is and reads images[0].url', async () => {
    const seen = capture('/v1/edit', {
      success: true,
      images: [{ url: url('e.png') }],
      request_id: 'req_2',
      credits_used: 240,
    });
    const result = await testClient().client.edit({
      prompt: 'brighter',
      model: 'theta-edit',
      image: { kind: 'url', url: url('src.png') },
      quality: 'high',
    });
    expect(result).toEqual({ requestId: 'req_2', creditsUsed: 240, url: url('e.png') });
    expect(seen[0]?.body).toEqual({ prompt: 'brighter', image: url('src.png'), model: 'theta-edit', quality: 'high' });
  });

  it('upscale turns a local file into a data URI with the type its bytes show', async () => {
    const file = path.join(tempDir(), 'photo.jpg');
    writeFileSync(file, PNG_1X1);
    const seen = capture('/v1/upscale', {
      success: true,
      image_url: url('u.png'),
      request_id: 'req_3',
      credits_used: 100,
    });
    const result = await testClient().client.upscale({
      image: { kind: 'file', path: file, shown: 'photo.jpg' },
      scale: 4,
    });
    expect(result.url).toBe(url('u.png'));
    expect(seen[0]?.body).toEqual({ image: `data:image/png;base64,${PNG_1X1.toString('base64')}`, scale: 4 });
  });

  it('refuses an image over 10 MB locally: an error, and no request', async () => {
    const seen = capture('/v1/remove-bg', { success: true, image_url: url('r.png') });
    const file = path.join(tempDir(), 'huge.png');
    writeFileSync(file, Buffer.concat([PNG_1X1, Buffer.alloc(10_000_001)]));
    const error = await testClient()
      .client.removeBg({ image: { kind: 'file', path: file, shown: 'huge.png' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ serviceCode: 'image_too_large', kind: 'permanent', status: undefined });
    expect((error as Error).message).toContain('nothing was sent');
    expect(seen).toHaveLength(0);
  });
});

describe('tts', () => {
  it('sends text, model and voice; reads audio_url and duration_seconds', async () => {
    const seen = capture('/v1/tts', {
      success: true,
      audio_url: url('v.mp3'),
      duration_seconds: 3.2,
      request_id: 'req_4',
      credits_used: 10,
    });
    const result = await testClient().client.tts({ text: 'Hello', model: 'tts-alpha', voice_id: 'cedar' });
    expect(result).toEqual({ requestId: 'req_4', creditsUsed: 10, url: url('v.mp3'), durationSeconds: 3.2 });
    expect(seen[0]?.body).toEqual({ text: 'Hello', model: 'tts-alpha', voice_id: 'cedar' });
  });
});

describe('video', () => {
  it('submits with the configured field names and reads the job id', async () => {
    const seen = capture('/v1/video', { success: true, request_id: 'job_1', status: 'pending' });
    const { client } = testClient({
      api: {
        ...testClient().client.api,
        video: { ...testClient().client.api.video, fieldNames: { aspect_ratio: 'ratio', duration: 'seconds' } },
      },
    });
    const submitted = await client.submitVideo({
      prompt: 'orbit',
      model: 'gamma3-fast-i2v',
      mode: 'image-to-video',
      image: { kind: 'url', url: url('s.png') },
      aspect_ratio: '9:16',
      duration: 6,
    });
    expect(submitted).toMatchObject({ requestId: 'job_1', status: 'pending' });
    expect(seen[0]?.body).toEqual({
      prompt: 'orbit',
      model: 'gamma3-fast-i2v',
      mode: 'image-to-video',
      image: url('s.png'),
      ratio: '9:16',
      seconds: 6,
    });
  });

  it('asks the status by POST with the id in the body (the default)', async () => {
    const seen = capture('/v1/video/status', {
      success: true,
      status: 'completed',
      video_url: url('v.mp4'),
      credits_used: 2000,
    });
    const state = await testClient().client.videoStatus('job_1');
    expect(state).toEqual({
      requestId: 'job_1',
      state: 'completed',
      status: 'completed',
      url: url('v.mp4'),
      creditsUsed: 2000,
      message: undefined,
    });
    expect(seen[0]?.body).toEqual({ request_id: 'job_1' });
  });

  it('or by GET on a path template, when the pipeline says so', async () => {
    const seen = capture('/v1/video/job%2F1', { success: true, status: 'processing' }, 'get');
    const base = testClient().client.api;
    const { client } = testClient({
      api: { ...base, video: { ...base.video, statusMethod: 'GET', statusPath: '/v1/video/{request_id}' } },
    });
    const state = await client.videoStatus('job/1');
    expect(state).toMatchObject({ state: 'running', status: 'processing', url: undefined });
    expect(seen[0]?.url).toBe(`${BASE}/v1/video/job%2F1`);
  });
});
