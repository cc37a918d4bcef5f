/** What the manifest says of a downloaded file: pixel size for images, duration for audio and video. */
import { readFile } from 'node:fs/promises';
import { mp3Duration } from './mp3-duration.js';

type ImageSize = typeof import('image-size').imageSize;

// image-size is 26 modules: loaded with the first image, not while a run starts.
let imageSizeLoaded: Promise<ImageSize> | undefined;
function loadImageSize(): Promise<ImageSize> {
  imageSizeLoaded ??= import('image-size').then((module) => module.imageSize);
  return imageSizeLoaded;
}

export interface MediaInfo {
  readonly width?: number;
  readonly height?: number;
  readonly durationSeconds?: number;
}

/**
 * What the manifest says of a file. An image's size is read from its header without decoding it
 * (image-size): from `head`, its first bytes, when given, else (or when the header lies further
 * in, as a JPEG with a large EXIF block) from the whole file.
 */
export async function mediaInfo(path: string, mediaType: string, head?: Uint8Array): Promise<MediaInfo> {
  try {
    if (mediaType.startsWith('image/')) {
      const imageSize = await loadImageSize();
      return (head && pixelSize(imageSize, head)) ?? pixelSize(imageSize, await readFile(path)) ?? {};
    }
    const bytes = await readFile(path);
    if (mediaType === 'audio/mpeg') return { durationSeconds: mp3Duration(bytes) };
    if (mediaType === 'video/mp4') {
      const seconds = mp4Duration(bytes);
      return seconds === undefined ? {} : { durationSeconds: seconds };
    }
  } catch {
    // A file we cannot read the size of is still the result; the manifest leaves it out.
  }
  return {};
}

function pixelSize(imageSize: ImageSize, bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const { width, height } = imageSize(bytes);
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds from the movie header (moov/mvhd) of an MP4. */
export function mp4Duration(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const find = (start: number, end: number, type: string): [number, number] | undefined => {
    for (let at = start; at + 8 <= end;) {
      let size = view.getUint32(at);
      const name = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
      if (size === 1 && at + 16 <= end) size = Number(view.getBigUint64(at + 8));
      if (size < 8) return undefined;
      if (name === type) return [at, Math.min(end, at + size)];
      at += size;
    }
    return undefined;
  };
  const moov = find(0, bytes.length, 'moov');
  const mvhd = moov && find(moov[0] + 8, moov[1], 'mvhd');
  if (!mvhd) return undefined;
  const version = bytes[mvhd[0] + 8];
  const base = mvhd[0] + 12;
  const timescale = version === 1 ? view.getUint32(base + 16) : view.getUint32(base + 8);
  const duration = version === 1 ? Number(view.getBigUint64(base + 20)) : view.getUint32(base + 12);
  return timescale > 0 ? Math.round((duration / timescale) * 1000) / 1000 : undefined;
}
