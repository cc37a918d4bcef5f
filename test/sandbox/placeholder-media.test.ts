/**
 * `media: placeholder` (benchmarks): every result is one tiny valid file per kind, made once,
 * while answers, charges and accounting stay those of the real sandbox.
 */
import { parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { call, download } from '../helpers/sandbox-http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ config: { seed: 3, media: 'placeholder' } });
});
afterAll(() => sandbox.stop());

describe('placeholder media', () => {
  it('answers generate as usual, with the same small PNG for every prompt', async () => {
    const answers = await Promise.all(
      ['a shoe', 'a boat'].map((prompt) =>
        call(sandbox, '/v1/generate', { prompt, model: 'z-image-turbo', width: 1024, height: 1024 }),
      ),
    );
    const files = [];
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 200, body: { success: true, credits_used: 100 } });
      files.push(await download((answer.body.images as { url: string }[])[0]?.url ?? ''));
    }
    expect(files[0]?.bytes.equals(files[1]?.bytes ?? Buffer.alloc(0))).toBe(true);
    expect(await sharp(files[0]?.bytes).metadata()).toMatchObject({ format: 'png', width: 8, height: 8 });
    expect(files[0]?.bytes.length).toBeLessThan(200);
  });

  it('answers speech with a valid MP3 and its real duration', async () => {
    const answer = await call(sandbox, '/v1/tts', { text: 'Hello there, this is a long sentence.' });
    expect(answer.status).toBe(200);
    const file = await download(answer.body.audio_url as string);
    const { format } = await parseBuffer(file.bytes, 'audio/mpeg');
    expect(format.duration).toBeCloseTo(answer.body.duration_seconds as number, 1);
  });
});
