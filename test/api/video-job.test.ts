/**
 * The video job: submit, poll at the interval (never under 5 s against a real host), unknown
 * statuses mean running, `error` ends it with the service's message, throttled polls wait and go
 * on, and past the 5-minute timeout the job is submitted again under a new key (or kept polling,
 * or failed), with every request_id kept.
 */
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { runVideoJob, VideoJobError } from '../../src/api/video-job.js';
import type { ResolvedApi } from '../../src/pipeline/checked-pipeline.js';
import { BASE, mockService, resolvedApi, testClient } from '../helpers/api-harness.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

const PARAMS = { prompt: 'orbit', model: 'gamma3.1', mode: 'text-to-video' } as const;
const VIDEO = 'https://cdn.media.test/v.mp4';

/** A service whose jobs answer the given statuses in turn (the last repeats); records everything. */
function service(statuses: readonly (Record<string, unknown> | (() => Response))[]) {
  const submits: { key: string | null }[] = [];
  const polls: string[] = [];
  mockService.use(
    http.post(`${BASE}/v1/video`, ({ request }) => {
      submits.push({ key: request.headers.get('idempotency-key') });
      return HttpResponse.json({ success: true, request_id: `job_${submits.length}`, status: 'pending' });
    }),
    http.post(`${BASE}/v1/video/status`, async ({ request }) => {
      const { request_id } = (await request.json()) as { request_id: string };
      polls.push(request_id);
      const answer = statuses[Math.min(polls.length - 1, statuses.length - 1)];
      return typeof answer === 'function' ? answer() : HttpResponse.json({ success: true, request_id, ...answer });
    }),
  );
  return { submits, polls };
}

function clientWith(video: Partial<ResolvedApi['video']>) {
  return testClient({ api: resolvedApi(video) });
}

describe('a video job', () => {
  it('polls every 5 s until completed; any other status means still running', async () => {
    const { polls } = service([
      { status: 'pending' },
      { status: 'processing' },
      { status: 'queued' },
      { status: 'completed', video_url: VIDEO, credits_used: 3000 },
    ]);
    const { client, recorded } = clientWith({});
    const submitted: string[] = [];
    const done = await runVideoJob(client, PARAMS, {
      idempotencyKey: 'S1/clip',
      onSubmitted: (id) => void submitted.push(id),
    });
    expect(done).toEqual({ requestId: 'job_1', url: VIDEO, creditsUsed: 3000, requestIds: ['job_1'], polls: 4 });
    expect(polls).toEqual(['job_1', 'job_1', 'job_1', 'job_1']);
    expect(recorded.sleeps).toEqual([5000, 5000, 5000, 5000]);
    expect(submitted).toEqual(['job_1']);
  });

  it('never polls faster than every 5 s against a real host, however it is configured', async () => {
    service([{ status: 'completed', video_url: VIDEO }]);
    const { client, recorded } = clientWith({ pollIntervalSeconds: 1, pollIntervalMaxSeconds: 1 });
    await runVideoJob(client, PARAMS, {});
    expect(recorded.sleeps).toEqual([5000]);
  });

  it('may poll faster on loopback (the local sandbox)', async () => {
    const { recorded } = clientWith({});
    const local = new ApiClient({
      baseUrl: 'http://127.0.0.1:9',
      key: new SecretKey('k'),
      api: resolvedApi({ pollIntervalSeconds: 0.05, pollIntervalMaxSeconds: 0.05 }),
      connections: 1,
      environment: { sleep: async (ms) => void recorded.sleeps.push(ms), random: () => 0.5, now: Date.now },
    });
    mockService.use(
      http.post('http://127.0.0.1:9/v1/video', () => HttpResponse.json({ success: true, request_id: 'j' })),
      http.post('http://127.0.0.1:9/v1/video/status', () =>
        HttpResponse.json({ success: true, status: 'completed', video_url: VIDEO }),
      ),
    );
    await runVideoJob(local, PARAMS, {});
    expect(recorded.sleeps).toEqual([50]);
  });

  it('lets the interval grow to its cap when allowed', async () => {
    service([
      { status: 'pending' },
      { status: 'pending' },
      { status: 'pending' },
      { status: 'completed', video_url: VIDEO },
    ]);
    const { client, recorded } = clientWith({ pollIntervalSeconds: 5, pollIntervalMaxSeconds: 10 });
    await runVideoJob(client, PARAMS, {});
    expect(recorded.sleeps).toEqual([5000, 7500, 10000, 10000]);
  });

  it('ends with the service message when the job ends in error', async () => {
    service([{ status: 'processing' }, { status: 'error', message: 'content policy' }]);
    const error = (await runVideoJob(clientWith({}).client, PARAMS, {}).catch((e: unknown) => e)) as VideoJobError;
    expect(error).toBeInstanceOf(VideoJobError);
    expect(error).toMatchObject({ reason: 'error', requestId: 'job_1', requestIds: ['job_1'] });
    expect(error.message).toBe('video job job_1 ended in error: content policy');
  });

  it('waits out a throttled poll and goes on', async () => {
    const { polls } = service([
      { status: 'pending' },
      () => HttpResponse.json({ success: false, code: 'rate_limit_exceeded', message: 'slow down' }, { status: 429 }),
      { status: 'completed', video_url: VIDEO },
    ]);
    const { client, recorded } = clientWith({});
    const done = await runVideoJob(client, PARAMS, {});
    expect(done.url).toBe(VIDEO);
    expect(polls).toHaveLength(3);
    // 5 s, 5 s, then the throttled poll's own backoff (no Retry-After: full jitter 500 ms).
    expect(recorded.sleeps).toEqual([5000, 5000, 500]);
  });

  it('counts a poll that failed even after retries as a missed look, not a failed job', async () => {
    const broken = () => HttpResponse.json({ success: false, code: 'x', message: 'down' }, { status: 503 });
    service([broken, broken, broken, broken, { status: 'completed', video_url: VIDEO }]);
    const done = await runVideoJob(clientWith({}).client, PARAMS, {});
    expect(done.polls).toBe(2);
  });
});

describe('resuming a job an earlier run submitted', () => {
  it('polls it again instead of submitting anew', async () => {
    const { submits, polls } = service([{ status: 'completed', video_url: VIDEO }]);
    const done = await runVideoJob(clientWith({}).client, PARAMS, { idempotencyKey: 'k', resume: ['job_9'] });
    expect(submits).toEqual([]);
    expect(polls).toEqual(['job_9']);
    expect(done).toMatchObject({ requestId: 'job_9', requestIds: ['job_9'] });
  });

  it('submits again, under a new key, when the service no longer knows the job', async () => {
    const gone = () =>
      HttpResponse.json({ success: false, code: 'job_not_found', message: 'no such job' }, { status: 404 });
    const { submits } = service([gone, { status: 'completed', video_url: VIDEO }]);
    const done = await runVideoJob(clientWith({}).client, PARAMS, { idempotencyKey: 'k', resume: ['job_9'] });
    expect(submits).toEqual([{ key: 'k/resubmit-1' }]);
    expect(done.requestIds).toEqual(['job_9', 'job_1']);
  });
});

describe('the 5-minute timeout', () => {
  it('resubmits under a derived key and keeps every request_id (default)', async () => {
    // 60 polls of "pending" for the first job, then the second job completes.
    const statuses = [
      ...Array.from({ length: 60 }, () => ({ status: 'pending' })),
      { status: 'completed', video_url: VIDEO },
    ];
    const { submits, polls } = service(statuses);
    const { client, recorded } = clientWith({});
    const done = await runVideoJob(client, PARAMS, { idempotencyKey: 'S1/clip' });
    expect(submits).toEqual([{ key: 'S1/clip' }, { key: 'S1/clip/resubmit-1' }]);
    expect(polls.filter((id) => id === 'job_1')).toHaveLength(60);
    expect(done).toMatchObject({ requestId: 'job_2', requestIds: ['job_1', 'job_2'], polls: 61 });
    expect(recorded.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(305_000);
  });

  it('gives up after two resubmissions', async () => {
    const { submits } = service([{ status: 'pending' }]);
    const error = (await runVideoJob(clientWith({}).client, PARAMS, { idempotencyKey: 'k' }).catch(
      (e: unknown) => e,
    )) as VideoJobError;
    expect(submits).toHaveLength(3);
    expect(error).toMatchObject({ reason: 'timeout', requestIds: ['job_1', 'job_2', 'job_3'] });
    expect(error.message).toBe('video job job_3 did not finish within 300 s after 3 submissions');
  });

  it('fails at once with on_timeout: fail', async () => {
    const { submits, polls } = service([{ status: 'pending' }]);
    await expect(runVideoJob(clientWith({ onTimeout: 'fail' }).client, PARAMS, {})).rejects.toMatchObject({
      reason: 'timeout',
    });
    expect([submits.length, polls.length]).toEqual([1, 60]);
  });

  it('keeps polling the same job with on_timeout: keep-polling', async () => {
    const statuses = [
      ...Array.from({ length: 90 }, () => ({ status: 'processing' })),
      { status: 'completed', video_url: VIDEO },
    ];
    const { submits } = service(statuses);
    const done = await runVideoJob(clientWith({ onTimeout: 'keep-polling' }).client, PARAMS, {});
    expect(submits).toHaveLength(1);
    expect(done.polls).toBe(91);
  });
});
