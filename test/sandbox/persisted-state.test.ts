/**
 * A sandbox that keeps its state (`startSandbox({ stateDir })`, what `run --sandbox` starts): the
 * next one on the same folder has its balances, quota, charges, stored answers, video jobs and
 * result files, at the same origin; time passes on the wall clock between them (retention, jobs
 * finishing); two at once each record their own; nothing is answered before it is on disk.
 * Killed processes are the end-to-end tests' (test/e2e/run-sandbox-resume.test.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpEngine } from '../../src/api/http-engine.js';
import { SandboxStateError } from '../../src/sandbox/persist/state-error.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/sandbox.js';
import { type Answer, call, download, imageUrl } from '../helpers/sandbox-http.js';
import { tempDir } from '../helpers/temp-dir.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const started: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});

async function start(stateDir: string, options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ ...options, stateDir });
  started.push(sandbox);
  return sandbox;
}

/** The sandbox where it listens, which is not its origin when the origin's port was taken. */
const listening = (sandbox: Sandbox) => ({ baseUrl: sandbox.address }) as Sandbox;
const atAddress = (sandbox: Sandbox, url: string) => url.replace(sandbox.baseUrl, sandbox.address);
const generate = (sandbox: Sandbox, key: string, prompt = 'a red shoe') =>
  call(
    listening(sandbox),
    '/v1/generate',
    { prompt, model: 'z-image-turbo', width: 256, height: 256 },
    {
      headers: { 'idempotency-key': key },
    },
  );
const accounts = async (sandbox: Sandbox) =>
  (
    (await fetch(`${sandbox.address}/__sandbox/accounts`).then((response) => response.json())) as {
      accounts: { name: string; credits: number; used_24h: number }[];
    }
  ).accounts.find((account) => account.name === 'demo');
const charges = (sandbox: Sandbox) => sandbox.stats.toJSON().charges;
const clockAt = (at: number) => () => at;

describe('a sandbox that keeps its state', () => {
  it('has everything on disk before it answers, and the next one carries on from it', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const photo = await generate(first, 'al-photo');
    expect(photo.status).toBe(200);
    const url = imageUrl(photo);
    const id = /\/files\/([\w-]+)\.png$/.exec(url)?.[1] as string;
    // Answered, so saved: the file, and the one log line of the call.
    expect(existsSync(path.join(dir, 'sessions/1/files', `${id}.png`))).toBe(true);
    expect(readFileSync(path.join(dir, 'sessions/1/log.jsonl'), 'utf8')).toContain('"key":"al-photo"');
    expect((await call(listening(first), '/v1/tts', { text: 'hello' })).status).toBe(200);
    await first.stop();

    const second = await start(dir);
    expect(second.baseUrl).toBe(first.baseUrl);
    const replayed = await generate(second, 'al-photo');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(photo.body);
    const file = await download(atAddress(second, url));
    expect(file).toMatchObject({ status: 200, type: 'image/png' });
    expect(file.bytes.subarray(1, 4).toString()).toBe('PNG');
    // 100 + 10 credits; three requests (the replay counts against the quota, as every request).
    expect(await accounts(second)).toMatchObject({ credits: 100_000 - 110, used_24h: 3 });
    expect(charges(second)).toMatchObject({ count: 2, credits: 110, by_idempotency_key: { 'al-photo': 1 } });
  });

  it('finishes a video job on the wall clock after a restart, charges it once, and makes its clip', async () => {
    const dir = tempDir();
    const t0 = Date.now();
    const first = await start(dir, { wallClock: clockAt(t0) });
    const submitted = await call(
      listening(first),
      '/v1/video',
      { prompt: 'orbit', model: 'beta-v2.5-turbo-pro', duration: 5 },
      { headers: { 'idempotency-key': 'al-clip' } },
    );
    const jobId = submitted.body.request_id as string;
    expect((await call(listening(first), `/v1/video/${jobId}`)).body.status).toBe('pending');
    await first.stop();

    const later = await start(dir, { wallClock: clockAt(t0 + 10_000) });
    const done = await call(listening(later), `/v1/video/${jobId}`);
    expect(done.body).toMatchObject({ status: 'completed', credits_used: 1500 });
    const again = await call(
      listening(later),
      '/v1/video',
      { prompt: 'orbit', model: 'beta-v2.5-turbo-pro', duration: 5 },
      { headers: { 'idempotency-key': 'al-clip' } },
    );
    expect(again.body.request_id).toBe(jobId);
    const clip = await download(atAddress(later, done.body.video_url as string));
    expect(clip).toMatchObject({ status: 200, type: 'video/mp4' });
    await later.stop();

    const third = await start(dir, { wallClock: clockAt(t0 + 20_000) });
    expect((await call(listening(third), `/v1/video/${jobId}`)).body).toMatchObject({
      status: 'completed',
      video_url: done.body.video_url,
    });
    expect(charges(third)).toMatchObject({ count: 1, credits: 1500, by_idempotency_key: { 'al-clip': 1 } });
  });

  it('forgets as the service does: a day later the URL is gone (410), the key and the quota free', async () => {
    const dir = tempDir();
    const t0 = Date.now();
    const first = await start(dir, { wallClock: clockAt(t0) });
    const url = imageUrl(await generate(first, 'al-photo'));
    await first.stop();

    const nextDay = await start(dir, { wallClock: clockAt(t0 + DAY + HOUR) });
    expect((await download(atAddress(nextDay, url))).status).toBe(410);
    const redone = await generate(nextDay, 'al-photo');
    expect(redone.headers.get('idempotent-replayed')).toBeNull();
    expect(imageUrl(redone)).not.toBe(url);
    expect(await accounts(nextDay)).toMatchObject({ credits: 100_000 - 200, used_24h: 1 });
    await nextDay.stop();

    const weekLater = await start(dir, { wallClock: clockAt(t0 + 9 * DAY) });
    expect((await download(atAddress(weekLater, url))).status).toBe(404);
  });

  it('runs beside another sandbox on the same state: one origin, each its own records, the next sees both', async () => {
    const dir = tempDir();
    const one = await start(dir);
    const two = await start(dir);
    // The origin's port is the first one's: the second listens elsewhere, under the same origin.
    expect(two.baseUrl).toBe(one.baseUrl);
    expect(two.address).not.toBe(two.baseUrl);
    const a: Answer = await generate(one, 'al-a', 'one');
    const b: Answer = await generate(two, 'al-b', 'two');
    // Reached through the route, as `run --sandbox` does: the origin's port alone would be the first's.
    const engine = new HttpEngine(1, undefined, { origin: two.baseUrl, address: two.address });
    try {
      expect((await engine.fetch(imageUrl(b), { method: 'GET', headers: {} })).status).toBe(200);
    } finally {
      await engine.close();
    }
    expect((await download(imageUrl(b))).status).toBe(404);
    await Promise.all([one.stop(), two.stop()]);

    const next = await start(dir);
    expect(charges(next)).toMatchObject({ count: 2, by_idempotency_key: { 'al-a': 1, 'al-b': 1 } });
    for (const answer of [a, b]) expect((await download(atAddress(next, imageUrl(answer)))).status).toBe(200);
    expect(await accounts(next)).toMatchObject({ credits: 100_000 - 200 });
  });

  it('refuses a damaged state, saying how to start afresh', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'state.json'), 'not json');
    const error = await startSandbox({ stateDir: dir }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SandboxStateError);
    expect((error as Error).message).toMatch(/has a damaged state\.json .* Delete that folder/);
  });

  it('keeps nothing without a state folder', async () => {
    const sandbox = await startSandbox();
    started.push(sandbox);
    expect(sandbox.recorder).toBeUndefined();
    expect(sandbox.address).toBe(sandbox.baseUrl);
  });
});
