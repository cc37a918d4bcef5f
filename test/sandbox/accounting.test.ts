/**
 * The rolling 24-hour quota (every authenticated request, polls included), credits charged per
 * the catalogue (video at completion, nothing on error), idempotent replays, and the expiry of
 * result URLs, on the sandbox clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { call, DEMO_KEY, download, FREE_KEY, imageUrl, stats } from '../helpers/sandbox-http.js';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await startSandbox({ config: { seed: 9, video: { duration_ms: 10_000 } } });
});
afterEach(() => sandbox.stop());

const HOUR = 3_600_000;

describe('daily quota', () => {
  it('counts every authenticated request, polls included, over a rolling 24 hours', async () => {
    // The free plan: 100 requests. 50 tts + 1 video + 49 polls = 100. (Credits enough for the video.)
    (sandbox.accounts.find(FREE_KEY) as { credits: number }).credits = 10_000;
    for (let i = 0; i < 50; i++)
      expect((await call(sandbox, '/v1/tts', { text: `n${i}` }, { key: FREE_KEY })).status).toBe(200);
    sandbox.clock.advance(HOUR);
    const video = await call(sandbox, '/v1/video', { prompt: 'p', model: 'beta-v2.5-turbo-pro' }, { key: FREE_KEY });
    const id = video.body.request_id as string;
    for (let i = 0; i < 49; i++)
      expect((await call(sandbox, `/v1/video/${id}`, undefined, { key: FREE_KEY })).status).toBe(200);
    const refused = await call(sandbox, `/v1/video/${id}`, undefined, { key: FREE_KEY });
    expect(refused.status).toBe(429);
    // The first 50 leave the window 24 h after they were sent: an hour before the rest.
    // (The sandbox clock is real time plus the advance: a few real seconds pass during the test.)
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeLessThanOrEqual(23 * 3600);
    expect(retryAfter).toBeGreaterThan(23 * 3600 - 30);
    sandbox.clock.advance(23 * HOUR);
    expect((await call(sandbox, '/v1/tts', { text: 'again' }, { key: FREE_KEY })).status).toBe(200);
    // Another key has its own quota; a 401 counts for nobody.
    expect((await call(sandbox, '/v1/tts', { text: 'other' })).status).toBe(200);
    expect((await fetch(`${sandbox.baseUrl}/__sandbox/accounts`).then((r) => r.json())) as unknown).toMatchObject({
      accounts: [
        { name: 'demo', used_24h: 1 },
        { name: 'free', used_24h: 51 },
        { name: 'enterprise', used_24h: 0 },
      ],
    });
  });
});

describe('credits', () => {
  it('are charged per the catalogue: price x images, 100 for upscale and remove-bg, per tts model', async () => {
    const before = sandbox.accounts.find(DEMO_KEY)?.credits as number;
    const image = imageUrl(
      await call(sandbox, '/v1/generate', {
        prompt: 'p',
        model: 'lambda-light',
        num_images: 3,
        width: 256,
        height: 256,
      }),
    );
    await call(sandbox, '/v1/upscale', { image });
    await call(sandbox, '/v1/remove-bg', { image });
    await call(sandbox, '/v1/tts', { text: 'a', model: 'beta-tts' });
    await call(sandbox, '/v1/edit', { prompt: 'p', model: 'theta-pro-edit-ultra', image });
    // 240 x 3 + 100 + 100 + 100 + 1,000
    expect(before - (sandbox.accounts.find(DEMO_KEY)?.credits as number)).toBe(2020);
    expect((await stats(sandbox)).charges).toMatchObject({ count: 5, credits: 2020 });
  });

  it('charges video when the job completes, and nothing when it ends in error', async () => {
    const credits = () => sandbox.accounts.find(DEMO_KEY)?.credits as number;
    const start = credits();
    const ok = await call(sandbox, '/v1/video', { prompt: 'p', model: 'delta-2-pro' });
    const failing = await call(
      sandbox,
      '/v1/video',
      { prompt: 'p', model: 'delta-2-pro' },
      { headers: { 'x-sandbox-fault': 'video=error' } },
    );
    expect(credits()).toBe(start);
    sandbox.clock.advance(10_000);
    expect((await call(sandbox, `/v1/video/${ok.body.request_id as string}`)).body).toMatchObject({
      status: 'completed',
      credits_used: 6000,
    });
    const failed = await call(sandbox, `/v1/video/${failing.body.request_id as string}`);
    expect(failed.body).toMatchObject({ status: 'error', credits_used: 0, message: expect.stringContaining('failed') });
    expect(failed.body).not.toHaveProperty('video_url');
    expect(start - credits()).toBe(6000);
  });
});

describe('Idempotency-Key', () => {
  it('returns the first answer again and charges once', async () => {
    const headers = { 'idempotency-key': 'row-A100/hero' };
    const first = await call(
      sandbox,
      '/v1/generate',
      { prompt: 'p', model: 'eta-v4', width: 256, height: 256 },
      { headers },
    );
    const again = await call(
      sandbox,
      '/v1/generate',
      { prompt: 'p', model: 'eta-v4', width: 256, height: 256 },
      { headers },
    );
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(
      sandbox,
      '/v1/generate',
      { prompt: 'p', model: 'eta-v4', width: 256, height: 256 },
      { headers: { 'idempotency-key': 'row-B200/hero' } },
    );
    expect(other.body.request_id).not.toBe(first.body.request_id);
    const counted = await stats(sandbox);
    expect(counted.charges.by_idempotency_key).toEqual({ 'row-A100/hero': 1, 'row-B200/hero': 1 });
    expect(counted.idempotent_replays).toBe(1);
  });

  it('gives the answer lost to a reset after the charge to the retry, charged once', async () => {
    const body = { prompt: 'p', model: 'eta-v4', width: 256, height: 256 };
    await expect(
      call(sandbox, '/v1/generate', body, { headers: { 'idempotency-key': 'k1', 'x-sandbox-fault': 'reset-after' } }),
    ).rejects.toThrow();
    const retry = await call(sandbox, '/v1/generate', body, { headers: { 'idempotency-key': 'k1' } });
    expect(retry).toMatchObject({ status: 200, body: { success: true, credits_used: 200 } });
    expect((await stats(sandbox)).charges.by_idempotency_key).toEqual({ k1: 1 });
  });

  it('makes a retry that arrives while the first request is still working wait for its answer', async () => {
    // The source is rendered on first use (2048 x 2048), so the first edit is mid-work when the second arrives.
    const source = imageUrl(
      await call(sandbox, '/v1/generate', { prompt: 'big', model: 'eta-v4', width: 2048, height: 2048 }),
    );
    const body = { prompt: 'p', model: 'eta-edit', image: source };
    const headers = { 'idempotency-key': 'edit-1' };
    const [first, second] = await Promise.all([
      call(sandbox, '/v1/edit', body, { headers }),
      call(sandbox, '/v1/edit', body, { headers }),
    ]);
    expect(second.body).toEqual(first.body);
    expect((await stats(sandbox)).charges.by_idempotency_key).toEqual({ 'edit-1': 1 });
  });

  it('keeps a video job to one charge when its submit is retried', async () => {
    const headers = { 'idempotency-key': 'clip-1' };
    const first = await call(sandbox, '/v1/video', { prompt: 'p', model: 'gamma3.1' }, { headers });
    const again = await call(sandbox, '/v1/video', { prompt: 'p', model: 'gamma3.1' }, { headers });
    expect(again.body.request_id).toBe(first.body.request_id);
    sandbox.clock.advance(10_000);
    await call(sandbox, `/v1/video/${first.body.request_id as string}`);
    expect((await stats(sandbox)).charges.by_idempotency_key).toEqual({ 'clip-1': 1 });
  });

  it('forgets a key after 24 hours', async () => {
    const headers = { 'idempotency-key': 'old' };
    const first = await call(sandbox, '/v1/tts', { text: 'a' }, { headers });
    sandbox.clock.advance(24 * HOUR);
    const later = await call(sandbox, '/v1/tts', { text: 'a' }, { headers });
    expect(later.body.request_id).not.toBe(first.body.request_id);
    expect((await stats(sandbox)).charges.by_idempotency_key).toEqual({ old: 2 });
  });
});

describe('result URLs', () => {
  it('answer for 24 hours, then 410; unknown ones 404; no key needed', async () => {
    const answer = await call(sandbox, '/v1/tts', { text: 'keep me' });
    const url = answer.body.audio_url as string;
    expect((await download(url)).status).toBe(200);
    sandbox.clock.advance(24 * HOUR - 1000);
    expect((await download(url)).status).toBe(200);
    sandbox.clock.advance(1000);
    const expired = await download(url);
    expect(expired.status).toBe(410);
    expect(JSON.parse(expired.bytes.toString())).toMatchObject({ success: false, code: 'expired' });
    expect((await download(url.replace(/aud_\w+/, 'aud_nothing'))).status).toBe(404);
  });

  it('can be made to look expired on demand', async () => {
    const url = imageUrl(
      await call(sandbox, '/v1/generate', { prompt: 'p', model: 'eta-v4', width: 256, height: 256 }),
    );
    expect((await download(url, { 'x-sandbox-fault': 'expired' })).status).toBe(410);
    expect((await stats(sandbox)).faults).toMatchObject({ expired_url: 1 });
  });
});
