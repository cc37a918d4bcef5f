/**
 * Every endpoint's success answer, and the media behind its URLs checked with independent
 * parsers: sharp for images, music-metadata for MP3, mp4box for MP4.
 */
import { parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { mp4Info } from '../helpers/mp4-info.js';
import { call, download, imageUrl } from '../helpers/sandbox-http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  // Video jobs take 10 s on the sandbox clock; tests move the clock instead of waiting.
  sandbox = await startSandbox({ config: { seed: 11, video: { duration_ms: 10_000 } } });
});
afterAll(() => sandbox.stop());

async function generated(prompt: string, extra: Record<string, unknown> = {}) {
  return call(sandbox, '/v1/generate', { prompt, model: 'z-image-turbo', width: 256, height: 320, ...extra });
}

describe('POST /v1/generate', () => {
  it('answers images, request_id and credits_used; each image is a PNG of the requested size', async () => {
    const answer = await generated('a red trail shoe', { num_images: 3 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, credits_used: 300, request_id: expect.stringMatching(/^req_/) });
    const images = answer.body.images as { url: string }[];
    expect(images).toHaveLength(3);
    const files = await Promise.all(images.map((image) => download(image.url)));
    for (const file of files) {
      expect(file).toMatchObject({ status: 200, type: 'image/png' });
      expect(await sharp(file.bytes).metadata()).toMatchObject({ format: 'png', width: 256, height: 320 });
    }
    expect(new Set(files.map((file) => file.bytes.toString('base64'))).size).toBe(3);
  });

  it('derives the pictures from the prompt: the same prompt gives the same bytes, another differs', async () => {
    const [a, b, c] = await Promise.all([
      generated('same prompt'),
      generated('same prompt'),
      generated('other prompt'),
    ]);
    const [fa, fb, fc] = await Promise.all([a, b, c].map((answer) => download(imageUrl(answer))));
    expect(fa?.bytes.equals(fb?.bytes as Buffer)).toBe(true);
    expect(fa?.bytes.equals(fc?.bytes as Buffer)).toBe(false);
  });

  it('defaults to 1024 x 1024 and one image; prices iota-2 from its table (1k medium by default)', async () => {
    const answer = await call(sandbox, '/v1/generate', { prompt: 'x', model: 'iota-2' });
    expect(answer.body.credits_used).toBe(250);
    expect(await sharp((await download(imageUrl(answer))).bytes).metadata()).toMatchObject({
      width: 1024,
      height: 1024,
    });
    const tiered = await call(sandbox, '/v1/generate', {
      prompt: 'x',
      model: 'iota-2',
      resolution: '4k',
      quality: 'high',
      width: 256,
      height: 256,
      num_images: 2,
    });
    expect(tiered.body.credits_used).toBe(3200);
  });
});

describe('image operations on a generated image', () => {
  it('edit changes the source visibly and keeps its size', async () => {
    const source = imageUrl(await generated('edit me'));
    const answer = await call(sandbox, '/v1/edit', { prompt: 'yellow laces', model: 'eta-edit', image: source });
    expect(answer.body).toMatchObject({ success: true, credits_used: 200 });
    const [before, after] = await Promise.all([download(source), download(imageUrl(answer))]);
    const a = await sharp(before.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const b = await sharp(after.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([b.info.width, b.info.height]).toEqual([a.info.width, a.info.height]);
    let difference = 0;
    for (let i = 0; i < a.data.length; i++) difference += Math.abs((a.data[i] ?? 0) - (b.data[i] ?? 0));
    expect(difference / a.data.length).toBeGreaterThan(20);
  });

  it('upscale really resizes by the scale, image_url answer shape', async () => {
    const answer = await call(sandbox, '/v1/upscale', { image: imageUrl(await generated('small')), scale: 2.5 });
    expect(answer.body).toMatchObject({ success: true, credits_used: 100, image_url: expect.stringMatching(/\.png$/) });
    expect(await sharp((await download(imageUrl(answer))).bytes).metadata()).toMatchObject({ width: 640, height: 800 });
  });

  it('upscale defaults to 2 and takes a data URI', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const answer = await call(sandbox, '/v1/upscale', { image: `data:image/png;base64,${png.toString('base64')}` });
    expect(await sharp((await download(imageUrl(answer))).bytes).metadata()).toMatchObject({ width: 80, height: 60 });
  });

  it('remove-bg returns a PNG whose background is transparent and whose subject is not', async () => {
    const answer = await call(sandbox, '/v1/remove-bg', { image: imageUrl(await generated('cut me out')) });
    expect(answer.body).toMatchObject({ success: true, credits_used: 100 });
    const { data, info } = await sharp((await download(imageUrl(answer))).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect([alpha(0, 0), alpha(info.width - 1, info.height - 1)]).toEqual([0, 0]);
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    const share = opaque / (info.width * info.height);
    expect(share).toBeGreaterThan(0.03);
    expect(share).toBeLessThan(0.8);
  });

  it('remove-bg keeps the subject of an upscaled image, whose edges the upscale softened', async () => {
    // This picture's subject was flooded away when the flood compared neighbours only (6.8% left opaque).
    const prompt = 'Studio photo of the Trail Runner running shoe in red recycled mesh, soft light, white background';
    const source = await call(sandbox, '/v1/generate', { prompt, model: 'z-image-turbo', width: 512, height: 512 });
    const upscaled = await call(sandbox, '/v1/upscale', { image: imageUrl(source), scale: 2 });
    const answer = await call(sandbox, '/v1/remove-bg', { image: imageUrl(upscaled) });
    const { data, info } = await sharp((await download(imageUrl(answer))).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true });
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    expect(opaque / (info.width * info.height)).toBeGreaterThan(0.2);
    expect(data[3]).toBe(0);
  });
});

describe('POST /v1/tts', () => {
  it('answers audio_url and duration_seconds matching a valid MP3 that grows with the text', async () => {
    const short = await call(sandbox, '/v1/tts', { text: 'Meet the Trail Runner.' });
    const long = await call(sandbox, '/v1/tts', {
      text: 'Meet the Trail Runner. Made from recycled mesh, built for long days on rough ground.',
      model: 'beta-tts',
      voice_id: 'aurora',
    });
    expect(short.body).toMatchObject({ success: true, credits_used: 10, audio_url: expect.stringMatching(/\.mp3$/) });
    expect(long.body.credits_used).toBe(100);
    for (const answer of [short, long]) {
      const file = await download(answer.body.audio_url as string);
      expect(file.type).toBe('audio/mpeg');
      const { format } = await parseBuffer(file.bytes, { mimeType: 'audio/mpeg' }, { duration: true });
      expect(format.codec).toMatch(/MPEG .*Layer 3/);
      expect(format.duration).toBeCloseTo(answer.body.duration_seconds as number, 1);
    }
    expect(long.body.duration_seconds as number).toBeGreaterThan((short.body.duration_seconds as number) * 3);
  });
});

describe('POST /v1/video and its status', () => {
  it('goes pending, processing, completed; the MP4 has the duration and aspect ratio asked for', async () => {
    const start = imageUrl(await generated('start frame'));
    const submit = await call(sandbox, '/v1/video', {
      prompt: 'slow orbit',
      model: 'gamma3-fast-i2v',
      image: start,
      duration: 6,
      aspect_ratio: '9:16',
    });
    expect(submit.body).toMatchObject({ success: true, status: 'pending', request_id: expect.stringMatching(/^req_/) });
    const id = submit.body.request_id as string;
    expect((await call(sandbox, `/v1/video/${id}`)).body).toMatchObject({ status: 'pending' });
    sandbox.clock.advance(4_000);
    expect((await call(sandbox, '/v1/video/status', { request_id: id })).body).toMatchObject({ status: 'processing' });
    sandbox.clock.advance(6_000);
    const done = await call(sandbox, `/v1/video/${id}`);
    expect(done.body).toMatchObject({
      success: true,
      request_id: id,
      status: 'completed',
      credits_used: 2000,
      video_url: expect.stringMatching(/\.mp4$/),
    });
    const file = await download(done.body.video_url as string);
    expect(file.type).toBe('video/mp4');
    expect(mp4Info(file.bytes)).toEqual({
      seconds: 6,
      width: 270,
      height: 480,
      codec: expect.stringMatching(/^avc1\./),
    });
  });

  it('makes text-to-video from the prompt, and falls back to the model ratio it does offer', async () => {
    const submit = await call(sandbox, '/v1/video', {
      prompt: 'city at night',
      model: 'gamma3.1',
      aspect_ratio: '1:1',
    });
    sandbox.clock.advance(10_000);
    const done = await call(sandbox, `/v1/video/${submit.body.request_id as string}`);
    // gamma3.1 offers 16:9 and 9:16: 1:1 falls back to 16:9; no duration means its first, 4 s.
    expect(mp4Info((await download(done.body.video_url as string)).bytes)).toMatchObject({
      seconds: 4,
      width: 480,
      height: 270,
    });
  });

  it("does not know another account's job", async () => {
    const submit = await call(sandbox, '/v1/video', { prompt: 'x', model: 'gamma3.1' });
    const other = await call(sandbox, `/v1/video/${submit.body.request_id as string}`, undefined, {
      key: 'sk-sandbox-free-0000000000000000',
    });
    expect(other).toMatchObject({ status: 404, body: { code: 'job_not_found' } });
  });
});
