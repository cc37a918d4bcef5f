import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { mediaInfo, mp4Duration } from '../../src/media/media-info.js';
import { renderClip } from '../../src/sandbox/media/clip.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const HEAD = 64 * 1024;

async function image(format: 'png' | 'jpeg' | 'webp' | 'gif'): Promise<Buffer> {
  return sharp({ create: { width: 321, height: 123, channels: 3, background: '#369' } })
    .toFormat(format)
    .toBuffer();
}

function saved(bytes: Uint8Array, name: string): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, bytes);
  return file;
}

describe('image size for the manifest', () => {
  it.each(['png', 'jpeg', 'webp', 'gif'] as const)('reads a %s from its first bytes', async (format) => {
    const bytes = await image(format);
    // The path names no file: the head alone must be enough.
    expect(await mediaInfo('/nonexistent/file', `image/${format}`, bytes.subarray(0, HEAD))).toEqual({
      width: 321,
      height: 123,
    });
  });

  it('reads the whole file when the header lies past the first bytes (a JPEG with 80 KB of metadata)', async () => {
    const jpeg = await image('jpeg');
    // Two 40 KB APP segments right after the start-of-image marker push the frame header past 64 KB.
    const app = (marker: number) => {
      const segment = Buffer.alloc(4 + 40_000);
      segment[0] = 0xff;
      segment[1] = marker;
      segment.writeUInt16BE(40_002, 2);
      return segment;
    };
    const padded = Buffer.concat([jpeg.subarray(0, 2), app(0xe1), app(0xe2), jpeg.subarray(2)]);
    const file = saved(padded, 'big-exif.jpg');
    // The head alone is not enough (so the file is what was read)...
    expect(await mediaInfo('/nonexistent/file', 'image/jpeg', padded.subarray(0, HEAD))).toEqual({});
    expect(await mediaInfo(file, 'image/jpeg', padded.subarray(0, HEAD))).toEqual({ width: 321, height: 123 });
  });

  it('leaves the size out of bytes that are not an image', async () => {
    const file = saved(Buffer.from('not an image at all'), 'x.png');
    expect(await mediaInfo(file, 'image/png', Buffer.from('not an image at all'))).toEqual({});
  });
});

describe('MP4 duration', () => {
  it('comes from the movie header', async () => {
    const clip = await renderClip({ prompt: 'x', startImage: undefined, aspectRatio: '1:1', seconds: 3 });
    expect(mp4Duration(clip)).toBe(3);
    expect(await mediaInfo(saved(clip, 'clip.mp4'), 'video/mp4')).toEqual({ durationSeconds: 3 });
  });
});
