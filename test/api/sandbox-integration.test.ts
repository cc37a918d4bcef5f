/**
 * The client against the real sandbox over real sockets: downloads of every kind of result, and
 * the faults that matter for paying once (resets before and after the charge, stalls, 5xx), for
 * downloads (expired URLs, wrong kinds) and for the run (no credits, bad key).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { ApiError } from '../../src/api/api-error.js';
import type { ClientEvents } from '../../src/api/client-events.js';
import { ResultExpiredError } from '../../src/api/download.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { runVideoJob } from '../../src/api/video-job.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { resolvedApi } from '../helpers/api-harness.js';
import { DEMO_KEY, stats } from '../helpers/sandbox-http.js';
import { tempDir } from '../helpers/temp-pipeline.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ config: { seed: 3, video: { duration_ms: 150 } } });
});
afterAll(() => sandbox.stop());

/** A client with quick backoff and polling (the sandbox is on loopback). */
function client(key = DEMO_KEY, events: ClientEvents = {}): ApiClient {
  const api = {
    ...resolvedApi({ pollIntervalSeconds: 0.05, pollIntervalMaxSeconds: 0.05 }),
    retry: { baseSeconds: 0.01, capSeconds: 0.05 },
  };
  return new ApiClient({ baseUrl: sandbox.baseUrl, key: new SecretKey(key), api, connections: 4, events });
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('downloads', () => {
  it('stream each kind of result into place with its sha256, leaving no partial files', async () => {
    const api = client();
    const dir = tempDir();
    const image = await api.generate({ prompt: 'shoe', model: 'eta-v4', num_images: 1, width: 256, height: 256 });
    const speech = await api.tts({ text: 'Meet the shoe.', model: 'tts-alpha' });
    const clip = await runVideoJob(api, { prompt: 'orbit', model: 'gamma3.1', mode: 'text-to-video', duration: 4 }, {});
    const files = [
      await api.download(image.urls[0] as string, path.join(dir, 'A1', 'hero.png'), 'image'),
      await api.download(speech.url, path.join(dir, 'A1', 'voice.mp3'), 'audio'),
      await api.download(clip.url, path.join(dir, 'A1', 'clip.mp4'), 'video'),
    ];
    expect(files.map((file) => file.mediaType)).toEqual(['image/png', 'audio/mpeg', 'video/mp4']);
    for (const file of files) {
      expect(file.sha256).toBe(sha256(file.path));
      expect(file.bytes).toBe(readFileSync(file.path).length);
    }
    expect(readdirSync(path.join(dir, 'A1')).sort()).toEqual(['clip.mp4', 'hero.png', 'voice.mp3']);
    await api.close();
  });

  it('says the result expired after 24 hours (410), and does not retry that', async () => {
    const api = client();
    const { url } = await api.tts({ text: 'short lived', model: 'tts-alpha' });
    sandbox.clock.advance(24 * 3_600_000);
    const error = await api.download(url, path.join(tempDir(), 'v.mp3'), 'audio').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultExpiredError);
    expect((error as Error).message).toMatch(/is gone \(HTTP 410\): results are kept 24 hours/);
    await api.close();
  });

  it('refuses a file of the wrong kind, and plain http from anywhere but loopback', async () => {
    const api = client();
    const image = await api.generate({ prompt: 'x', model: 'eta-v4', num_images: 1, width: 256, height: 256 });
    await expect(api.download(image.urls[0] as string, path.join(tempDir(), 'x.mp4'), 'video')).rejects.toMatchObject({
      serviceCode: 'unexpected_content_type',
    });
    await expect(
      api.download('http://cdn.example.com/x.png', path.join(tempDir(), 'x.png'), 'image'),
    ).rejects.toMatchObject({ serviceCode: 'insecure_url' });
    await api.close();
  });
});

describe('faults and paying once', () => {
  it('a reset after the charge: the retry with the same key gets the stored answer, charged once', async () => {
    const ambiguous: unknown[] = [];
    const api = client(DEMO_KEY, { ambiguous: (event) => ambiguous.push(event) });
    sandbox.faults.script([{ fault: 'reset-after', path: '/v1/generate' }]);
    const result = await api.generate(
      { prompt: 'p', model: 'eta-v4', num_images: 1, width: 256, height: 256 },
      { idempotencyKey: 'int-reset-after' },
    );
    expect(result.urls).toHaveLength(1);
    expect(ambiguous).toHaveLength(1);
    expect((await stats(sandbox)).charges.by_idempotency_key['int-reset-after']).toBe(1);
    await api.close();
  });

  it('a reset before any work, then 503 twice: retried to success, charged once', async () => {
    const api = client();
    sandbox.faults.script([{ fault: 'reset-before' }, { fault: 'status=503' }, { fault: 'status=503' }]);
    await api.tts({ text: 'persist', model: 'tts-alpha' }, { idempotencyKey: 'int-flaky' });
    expect((await stats(sandbox)).charges.by_idempotency_key['int-flaky']).toBe(1);
    await api.close();
  });

  it('a stalled answer times out and is retried, charged once', async () => {
    const retries: string[] = [];
    const api = client(DEMO_KEY, { retry: (event) => retries.push(event.reason) });
    // The stall outlasts the test's own limit: only the client's 1 s time limit can end it (long enough that the retry, on a busy machine, is not cut short too).
    sandbox.faults.script([{ fault: 'stall=60000', path: '/v1/tts' }]);
    await api.tts({ text: 'stalled', model: 'tts-alpha' }, { idempotencyKey: 'int-stall', timeoutMs: 1000 });
    expect(retries).toEqual(['no answer timeout']);
    expect((await stats(sandbox)).charges.by_idempotency_key['int-stall']).toBe(1);
    await api.close();
  });

  it('no credits and a bad key end the call at once with what they mean', async () => {
    const broke = client('sk-sandbox-free-0000000000000000');
    const video = await broke
      .submitVideo({ prompt: 'p', model: 'delta-2-pro', mode: 'text-to-video' })
      .catch((e: unknown) => e);
    expect(video).toBeInstanceOf(ApiError);
    expect(video).toMatchObject({ status: 402, serviceCode: 'insufficient_credits', kind: 'credits', attempt: 1 });
    const stranger = client('sk-not-a-real-key-000');
    await expect(stranger.tts({ text: 't', model: 'tts-alpha' })).rejects.toMatchObject({ status: 401, kind: 'auth' });
    await Promise.all([broke.close(), stranger.close()]);
  });
});
