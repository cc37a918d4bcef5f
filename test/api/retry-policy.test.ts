/**
 * The retry table, as a user would check it: for each outcome, how many requests are sent, with
 * which waits between them (recorded, not slept; the jitter draw is fixed at 0.5), and what the
 * final error means. Also Retry-After in both formats and the idempotency key on every try.
 */
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.js';
import { abortableSleep, fullJitter, parseRetryAfter } from '../../src/api/retry.js';
import { BASE, mockService, testClient } from '../helpers/api-harness.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

const OK = { success: true, audio_url: 'https://cdn.media.test/a.mp3', request_id: 'req_ok', credits_used: 10 };

/** Answer each request with the next of `answers` (the last one repeats); count them. */
function sequence(pathname: string, answers: readonly (() => Response)[]) {
  const seen: Headers[] = [];
  mockService.use(
    http.post(`${BASE}${pathname}`, ({ request }) => {
      seen.push(request.headers);
      return (answers[Math.min(seen.length - 1, answers.length - 1)] as () => Response)();
    }),
  );
  return seen;
}

const status =
  (code: number, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  () =>
    HttpResponse.json({ success: false, code: `c${code}`, message: `m${code}`, ...body }, { status: code, headers });
const ok = () => HttpResponse.json(OK);
const reset = () => HttpResponse.error();

// Full jitter with the draw at 0.5, base 1 s, cap 30 s: 500, 1,000, 2,000 ms.
const BACKOFF = [500, 1000, 2000];

describe('the retry table', () => {
  it.each([
    ['500', status(500)],
    ['502', status(502)],
    ['503 without Retry-After', status(503)],
    ['408', status(408)],
    ['a connection reset', reset],
  ])('%s is transient: retried up to 4 tries with full-jitter backoff', async (_, answer) => {
    const seen = sequence('/v1/tts', [answer]);
    const { client, recorded } = testClient();
    const error = (await client.tts({ text: 't', model: 'tts-alpha' }).catch((e: unknown) => e)) as ApiError;
    expect(seen).toHaveLength(4);
    expect(recorded.sleeps).toEqual(BACKOFF);
    expect(error).toMatchObject({ kind: 'transient', attempt: 4 });
  });

  it('a transient failure followed by success returns the answer', async () => {
    const seen = sequence('/v1/tts', [status(503), reset, ok]);
    const { client, recorded } = testClient();
    expect(await client.tts({ text: 't', model: 'tts-alpha' })).toMatchObject({ requestId: 'req_ok' });
    expect(seen).toHaveLength(3);
    expect(recorded.sleeps).toEqual([500, 1000]);
  });

  it.each([
    ['400', status(400), 'permanent'],
    ['422', status(422), 'permanent'],
    ['404', status(404), 'permanent'],
    ['401', status(401), 'auth'],
    ['402', status(402), 'credits'],
    ['429 without Retry-After (the daily quota)', status(429), 'quota'],
    ['429 with a Retry-After of an hour (the daily quota)', status(429, { 'retry-after': '3600' }), 'quota'],
  ])('%s is not retried: one request, kind %s', async (_, answer, kind) => {
    const seen = sequence('/v1/tts', [answer]);
    const { client, recorded } = testClient();
    await expect(client.tts({ text: 't', model: 'tts-alpha' })).rejects.toMatchObject({ kind, attempt: 1 });
    expect(seen).toHaveLength(1);
    expect(recorded.sleeps).toEqual([]);
  });

  it('a 429 with a short Retry-After is throttling: it waits that long and does not use up a try', async () => {
    const throttled = status(429, { 'retry-after': '7' });
    const seen = sequence('/v1/tts', [throttled, throttled, status(500), throttled, ok]);
    const { client, recorded } = testClient();
    expect(await client.tts({ text: 't', model: 'tts-alpha' })).toMatchObject({ requestId: 'req_ok' });
    expect(seen).toHaveLength(5);
    // 7 s, 7 s, then the first backoff for the 500, then 7 s.
    expect(recorded.sleeps).toEqual([7000, 7000, 500, 7000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    // The test clock says 10:00:00; the service says come back at 10:00:12.
    sequence('/v1/tts', [status(503, { 'retry-after': 'Sun, 22 Nov 2026 10:00:12 GMT' }), ok]);
    const { client, recorded } = testClient();
    await client.tts({ text: 't', model: 'tts-alpha' });
    expect(recorded.sleeps).toEqual([12_000]);
  });

  it('never sleeps for hours inside a run: a long Retry-After on a 503 fails the call now', async () => {
    const seen = sequence('/v1/tts', [status(503, { 'retry-after': '7200' })]);
    const { client, recorded } = testClient();
    await expect(client.tts({ text: 't', model: 'tts-alpha' })).rejects.toMatchObject({
      kind: 'transient',
      retryAfterMs: 7_200_000,
    });
    expect(seen).toHaveLength(1);
    expect(recorded.sleeps).toEqual([]);
  });

  it('takes the number of tries from the step (retries + 1)', async () => {
    const seen = sequence('/v1/tts', [status(500)]);
    const { client } = testClient();
    await expect(client.tts({ text: 't', model: 'tts-alpha' }, { attempts: 2 })).rejects.toMatchObject({ attempt: 2 });
    expect(seen).toHaveLength(2);
  });
});

describe('what ends the tries early', () => {
  it('waits out throttling even on a step with no retries: it does not use up a try', async () => {
    const seen = sequence('/v1/tts', [status(429, { 'retry-after': '7' }), ok]);
    const { client, recorded } = testClient();
    expect(await client.tts({ text: 't', model: 'tts-alpha' }, { attempts: 1 })).toMatchObject({ requestId: 'req_ok' });
    expect(seen).toHaveLength(2);
    expect(recorded.sleeps).toEqual([7000]);
  });

  it("a retry the caller's slot refuses (the run's stop gate) ends the call with that refusal", async () => {
    class Stopping extends Error {}
    const seen = sequence('/v1/tts', [status(503), ok]);
    const { client, recorded } = testClient();
    let slots = 0;
    const slot = <T>(request: () => Promise<T>): Promise<T> =>
      ++slots > 1 ? Promise.reject(new Stopping()) : request();
    await expect(client.tts({ text: 't', model: 'tts-alpha' }, { slot })).rejects.toBeInstanceOf(Stopping);
    expect(seen).toHaveLength(1);
    expect(recorded.events.filter((e) => e.type === 'retry')).toHaveLength(1);
  });

  it("the run's abort during a wait ends the call at once with the run's reason: nothing more is sent", async () => {
    const seen = sequence('/v1/tts', [status(503), ok]);
    const run = new AbortController();
    const { client } = testClient({
      environment: {
        sleep: (ms, signal) => {
          run.abort('interrupted');
          return abortableSleep(ms, signal);
        },
        random: () => 0.5,
        now: Date.now,
      },
    });
    await expect(client.tts({ text: 't', model: 'tts-alpha' }, { signal: run.signal })).rejects.toBe('interrupted');
    expect(seen).toHaveLength(1);
  });
});

describe('idempotency keys and what is reported', () => {
  it('sends the same Idempotency-Key on every try and reports the ambiguous ones', async () => {
    const seen = sequence('/v1/generate', [
      reset,
      status(502),
      () => HttpResponse.json({ success: true, images: [{ url: 'https://cdn.media.test/a.png' }] }),
    ]);
    const { client, recorded } = testClient();
    await client.generate({ prompt: 'p', model: 'eta-v4', num_images: 1 }, { idempotencyKey: 'A100/hero' });
    expect(seen.map((headers) => headers.get('idempotency-key'))).toEqual(['A100/hero', 'A100/hero', 'A100/hero']);
    expect(recorded.events.filter((e) => e.type === 'ambiguous')).toEqual([
      {
        type: 'ambiguous',
        event: {
          method: 'POST',
          path: '/v1/generate',
          attempt: 1,
          idempotencyKey: 'A100/hero',
          reason: 'connection_reset',
        },
      },
    ]);
    // Every request that may have reached the service counts against the quota: all three.
    expect(
      recorded.events.filter((e) => e.type === 'sent').map((e) => (e.event as { status?: number }).status),
    ).toEqual([undefined, 502, 200]);
  });
});

describe('pieces', () => {
  it('full jitter grows by doubling up to the cap', () => {
    const backoff = { baseMs: 1000, capMs: 30_000, attempts: 10 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => fullJitter(n, backoff, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(fullJitter(3, backoff, () => 0)).toBe(0);
  });

  it('parses Retry-After seconds and dates, and ignores nonsense', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
