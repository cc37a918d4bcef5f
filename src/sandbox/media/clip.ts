/**
 * A video for a video job: a slow zoom across the start image (image-to-video) or across a
 * picture made from the prompt (text-to-video), encoded as H.264 in an MP4 that browsers and
 * players open, with the job's duration and aspect ratio. The encoder (x264 compiled to
 * WebAssembly, shipped in its npm package) loads on first use.
 */
import sharp from 'sharp';
import { promptPng } from './prompt-art.js';

const FPS = 12;

/** Frame sizes per ratio: small, even (H.264 needs it), quick to encode. */
export const CLIP_SIZES: Readonly<Record<string, { width: number; height: number }>> = {
  '16:9': { width: 480, height: 270 },
  '9:16': { width: 270, height: 480 },
  '1:1': { width: 360, height: 360 },
};

interface Encoder {
  width: number;
  height: number;
  frameRate: number;
  quantizationParameter: number;
  speed: number;
  outputFilename: string;
  initialize(): void;
  addFrameRgba(frame: Uint8Array): void;
  finalize(): void;
  delete(): void;
  FS: { readFile(path: string): Uint8Array; unlink(path: string): void };
}

async function createEncoder(): Promise<Encoder> {
  const module = (await import('h264-mp4-encoder')) as unknown as {
    default: { createH264MP4Encoder(): Promise<Encoder> };
  };
  return module.default.createH264MP4Encoder();
}

export interface ClipRequest {
  readonly prompt: string;
  readonly startImage: Uint8Array | undefined;
  readonly aspectRatio: string;
  readonly seconds: number;
}

/**
 * One encode at a time: the encoder's WebAssembly file system is shared, and two encodes writing
 * their output at once corrupt each other. Encoding is CPU-bound, so nothing is lost by waiting.
 */
let encoding: Promise<unknown> = Promise.resolve();
let encodes = 0;

export function renderClip(request: ClipRequest): Promise<Uint8Array> {
  const next = encoding.then(() => encode(request));
  encoding = next.catch(() => undefined);
  return next;
}

async function encode(request: ClipRequest): Promise<Uint8Array> {
  const size = CLIP_SIZES[request.aspectRatio] ?? (CLIP_SIZES['16:9'] as { width: number; height: number });
  const still = request.startImage ?? (await promptPng(request.prompt, 0, size.width * 2, size.height * 2));
  // The source at twice the frame size, so the zoom crops into real detail.
  const big = { width: size.width * 2, height: size.height * 2 };
  const source = await sharp(still).resize(big.width, big.height, { fit: 'cover' }).removeAlpha().raw().toBuffer();

  const encoder = await createEncoder();
  try {
    encoder.width = size.width;
    encoder.height = size.height;
    encoder.frameRate = FPS;
    encoder.quantizationParameter = 30;
    encoder.speed = 10;
    encoder.outputFilename = `clip-${++encodes}.mp4`;
    encoder.initialize();
    const frames = Math.max(1, Math.round(request.seconds * FPS));
    for (let i = 0; i < frames; i++) {
      // From the whole picture to its middle 70%, drifting right.
      const progress = frames === 1 ? 0 : i / (frames - 1);
      const cropW = Math.round(big.width * (1 - 0.3 * progress));
      const cropH = Math.round(big.height * (1 - 0.3 * progress));
      const left = Math.round((big.width - cropW) * (0.5 + 0.3 * progress));
      const top = Math.round((big.height - cropH) / 2);
      const frame = await sharp(source, { raw: { width: big.width, height: big.height, channels: 3 } })
        .extract({ left: Math.min(left, big.width - cropW), top, width: cropW, height: cropH })
        .resize(size.width, size.height, { fit: 'fill' })
        .ensureAlpha()
        .raw()
        .toBuffer();
      encoder.addFrameRgba(frame);
    }
    encoder.finalize();
    const mp4 = encoder.FS.readFile(encoder.outputFilename);
    encoder.FS.unlink(encoder.outputFilename);
    return mp4;
  } finally {
    encoder.delete();
  }
}
