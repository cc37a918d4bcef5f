/** The fault layer: seeded and repeatable, forced per request by header, scripted in order, counted. */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxConfig } from '../../src/sandbox/sandbox-config.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { call, DEMO_KEY, stats } from '../helpers/sandbox-http.js';

const started: Sandbox[] = [];
async function sandboxWith(config: SandboxConfig): Promise<Sandbox> {
  const sandbox = await startSandbox({ config });
  started.push(sandbox);
  return sandbox;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});

const TTS = { text: 'hello' };

/** What a client sees for each of n requests: a status, or "reset". */
async function outcomes(sandbox: Sandbox, n: number): Promise<(number | string)[]> {
  const seen: (number | string)[] = [];
  for (let i = 0; i < n; i++) {
    try {
      seen.push((await call(sandbox, '/v1/tts', TTS)).status);
    } catch {
      seen.push('reset');
    }
  }
  return seen;
}

describe('seeded faults', () => {
  const faults = { error_rate: 0.2, reset_before_rate: 0.1, reset_after_rate: 0.1 };

  it('repeat exactly with the same seed, and differ with another', async () => {
    const a = await outcomes(await sandboxWith({ seed: 42, faults }), 60);
    const b = await outcomes(await sandboxWith({ seed: 42, faults }), 60);
    const c = await outcomes(await sandboxWith({ seed: 43, faults }), 60);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    // Roughly the configured shares: 20% 5xx, and resets.
    expect(a.filter((o) => typeof o === 'number' && o >= 500).length).toBeGreaterThan(3);
    expect(a.filter((o) => o === 'reset').length).toBeGreaterThan(2);
    expect(a.filter((o) => o === 200).length).toBeGreaterThan(25);
  });

  it('count every fault, and charge only requests whose work was done', async () => {
    const sandbox = await sandboxWith({ seed: 7, faults });
    const seen = await outcomes(sandbox, 60);
    const counted = await stats(sandbox);
    const fiveHundreds = seen.filter((o) => typeof o === 'number' && o >= 500).length;
    const { status_500 = 0, status_502 = 0, status_503 = 0, reset_before = 0, reset_after = 0 } = counted.faults;
    expect(status_500 + status_502 + status_503).toBe(fiveHundreds);
    expect(reset_before + reset_after).toBe(seen.filter((o) => o === 'reset').length);
    // Answered 200s and resets after the work are charged; 5xx and resets before are not.
    expect(counted.charges.count).toBe(seen.filter((o) => o === 200).length + reset_after);
  });

  it('add latency, fixed or drawn from a range', async () => {
    const sandbox = await sandboxWith({ seed: 1, faults: { latency_ms: [60, 80] } });
    const started = performance.now();
    await call(sandbox, '/v1/tts', TTS);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});

describe('forced by the X-Sandbox-Fault header', () => {
  it('answers a chosen 5xx without doing or charging anything', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    for (const status of [500, 502, 503]) {
      const answer = await call(sandbox, '/v1/tts', TTS, { headers: { 'x-sandbox-fault': `status=${status}` } });
      expect(answer).toMatchObject({
        status,
        body: { success: false, code: 'internal_error', request_id: expect.any(String) },
      });
    }
    expect((await stats(sandbox)).charges.count).toBe(0);
  });

  it('resets the connection before the work (no charge) or after it (charged)', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    await expect(call(sandbox, '/v1/tts', TTS, { headers: { 'x-sandbox-fault': 'reset-before' } })).rejects.toThrow();
    expect((await stats(sandbox)).charges.count).toBe(0);
    await expect(call(sandbox, '/v1/tts', TTS, { headers: { 'x-sandbox-fault': 'reset-after' } })).rejects.toThrow();
    expect((await stats(sandbox)).charges.count).toBe(1);
  });

  it('stalls, then drops the connection', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    const started = performance.now();
    await expect(call(sandbox, '/v1/tts', TTS, { headers: { 'x-sandbox-fault': 'stall=150' } })).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect((await stats(sandbox)).faults).toMatchObject({ stall: 1 });
  });

  it('throttles a video status poll with a short Retry-After', async () => {
    const sandbox = await sandboxWith({ seed: 1, video: { duration_ms: 60_000 } });
    const submit = await call(sandbox, '/v1/video', { prompt: 'p', model: 'gamma3.1' });
    const throttled = await call(sandbox, `/v1/video/${submit.body.request_id as string}`, undefined, {
      headers: { 'x-sandbox-fault': 'throttle' },
    });
    expect(throttled).toMatchObject({ status: 429, body: { code: 'rate_limit_exceeded' } });
    expect(Number(throttled.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('refuses an unknown token with a 400, so a typo in a test cannot pass', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    const answer = await call(sandbox, '/v1/tts', TTS, { headers: { 'x-sandbox-fault': 'reset-afterwards' } });
    expect(answer).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
  });
});

describe('configured poll throttling', () => {
  it('answers 429 to polls of one job closer than poll_min_interval_ms', async () => {
    const sandbox = await sandboxWith({
      seed: 1,
      video: { duration_ms: 60_000 },
      faults: { poll_min_interval_ms: 5000 },
    });
    const id = (await call(sandbox, '/v1/video', { prompt: 'p', model: 'gamma3.1' })).body.request_id as string;
    expect((await call(sandbox, `/v1/video/${id}`)).status).toBe(200);
    expect((await call(sandbox, `/v1/video/${id}`)).status).toBe(429);
    sandbox.clock.advance(5000);
    expect((await call(sandbox, `/v1/video/${id}`)).status).toBe(200);
  });
});

describe('scripted outcomes', () => {
  it('serve the next matching requests in order, through the admin endpoint', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    const script = [
      { fault: 'status=503', path: '/v1/tts' },
      { fault: 'status=502', path: '/v1/tts' },
      { fault: 'reset-before' },
    ];
    const posted = await fetch(`${sandbox.baseUrl}/__sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ script }),
    });
    expect(posted.status).toBe(200);
    // A request to another path skips the path-bound entries and takes the first open one.
    await expect(call(sandbox, '/v1/generate', { prompt: 'p', model: 'eta-v4' })).rejects.toThrow();
    expect((await call(sandbox, '/v1/tts', TTS)).status).toBe(503);
    expect((await call(sandbox, '/v1/tts', TTS)).status).toBe(502);
    expect((await call(sandbox, '/v1/tts', TTS)).status).toBe(200);
  });

  it('can be set from code and cleared', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    sandbox.faults.script([{ fault: 'status=500' }, { fault: 'status=500' }]);
    expect((await call(sandbox, '/v1/tts', TTS)).status).toBe(500);
    sandbox.faults.clearScript();
    expect((await call(sandbox, '/v1/tts', TTS, { key: DEMO_KEY })).status).toBe(200);
  });

  it('break an idempotent replay too: a reset after the charge, then a reset of the replay, then the replay', async () => {
    const sandbox = await sandboxWith({ seed: 1 });
    sandbox.faults.script([{ fault: 'reset-after' }, { fault: 'reset-after' }]);
    const same = { headers: { 'idempotency-key': 'replay-me' } };
    const seen: (number | string)[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(
        await call(sandbox, '/v1/tts', TTS, same).then(
          (answer) => answer.status,
          () => 'reset',
        ),
      );
    }
    expect(seen).toEqual(['reset', 'reset', 200]);
    const counted = await stats(sandbox);
    expect(counted.charges.count).toBe(1);
    expect(counted.idempotent_replays).toBe(2);
    expect(counted.faults.reset_after).toBe(2);
  });
});
