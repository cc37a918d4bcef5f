/**
 * The key never leaves through the client: not in an error's message, its string or JSON or
 * inspected form, not in any event, not in the client object printed, even when the service
 * echoes the key back in its own messages.
 */
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/api/connection.js';
import { runVideoJob } from '../../src/api/video-job.js';
import { BASE, KEY, mockService, testClient } from '../helpers/api-harness.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

const echo =
  (status: number, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json(
      { success: false, code: `bad_${KEY}`, message: `key ${KEY} was refused`, error: { message: `again ${KEY}` } },
      { status, headers },
    );

describe('the API key', () => {
  it('appears nowhere in what the client reports or throws', async () => {
    const { client, recorded } = testClient();
    const thrown: unknown[] = [];
    const attempt = async (work: () => Promise<unknown>) => {
      try {
        await work();
      } catch (error) {
        thrown.push(error);
      }
    };
    for (const status of [400, 401, 402, 429, 500, 503]) {
      mockService.use(http.post(`${BASE}/v1/tts`, echo(status)));
      await attempt(() => client.tts({ text: 't', model: 'tts-alpha' }));
    }
    mockService.use(http.post(`${BASE}/v1/tts`, () => HttpResponse.error()));
    await attempt(() => client.tts({ text: 't', model: 'tts-alpha' }, { idempotencyKey: 'k' }));
    mockService.use(http.post(`${BASE}/v1/upscale`, () => HttpResponse.json({ success: true, odd: KEY })));
    await attempt(() => client.upscale({ image: { kind: 'url', url: 'https://cdn.media.test/a.png' }, scale: 2 }));
    mockService.use(
      http.post(`${BASE}/v1/video`, () => HttpResponse.json({ success: true, request_id: 'j' })),
      http.post(`${BASE}/v1/video/status`, () =>
        HttpResponse.json({ success: true, status: 'error', message: `failed for ${KEY}` }),
      ),
    );
    await attempt(() => runVideoJob(client, { prompt: 'p', model: 'gamma3.1', mode: 'text-to-video' }, {}));
    await attempt(() => client.download('https://cdn.media.test/gone.png', '/tmp/never-written.png', 'image'));

    expect(thrown.length).toBeGreaterThanOrEqual(10);
    const everything = [
      ...thrown.flatMap((error) => [
        String(error),
        (error as Error).message,
        JSON.stringify(error),
        inspect(error, { depth: 6 }),
      ]),
      JSON.stringify(recorded.events),
      inspect(client, { depth: 4 }),
      inspect(resolveConnection({ ASSETLINE_BASE_URL: BASE, ASSETLINE_API_KEY: KEY }, undefined), { depth: 4 }),
      JSON.stringify(resolveConnection({ ASSETLINE_BASE_URL: BASE, ASSETLINE_API_KEY: KEY }, undefined)),
    ].join('\n');
    expect(everything).toContain('[redacted]');
    expect(everything).not.toContain(KEY);
  });
});
