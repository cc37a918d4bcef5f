/**
 * The image a request gives (edit, upscale, remove-bg, video's start image): a data URI, one of
 * the sandbox's own result URLs, or another https URL. The sandbox cannot reach the internet, so
 * an outside URL stands for a placeholder picture made from the URL (a documented limit). Checked
 * as the service would: present, at most 10 MB, PNG, JPEG or WebP, and really decodable.
 */
import sharp from 'sharp';
import { IMAGE_MAX_BYTES } from '../catalog/limits.js';
import { OPEN_ITEMS } from '../catalog/open-items.js';
import { sniffImage } from '../media/sniff-image.js';
import type { FileStore } from './file-store.js';
import { promptPng } from './media/prompt-art.js';
import { SandboxError } from './sandbox-error.js';

export interface ImageSourceContext {
  readonly files: FileStore;
  readonly baseUrl: string;
  readonly now: number;
  /** Video takes a plain base64 string too; edit and upscale need the data URI prefix. */
  readonly allowRawBase64: boolean;
}

const ACCEPTED: readonly string[] = OPEN_ITEMS.imageFormats.sandbox;
const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)(?:;[\w-]+=[^;,]*)*;base64,/i;

export async function loadImage(value: unknown, context: ImageSourceContext): Promise<Uint8Array> {
  if (value === undefined || value === null || value === '')
    throw new SandboxError('missing_image', 'image is required');
  if (typeof value !== 'string')
    throw new SandboxError('invalid_image_format', 'image must be a URL or a base64 string');
  const bytes = await fetchBytes(value.trim(), context);
  if (bytes.length > IMAGE_MAX_BYTES) {
    throw new SandboxError(
      'image_too_large',
      `image is ${bytes.length} bytes; the limit is ${IMAGE_MAX_BYTES} (10 MB)`,
    );
  }
  const type = sniffImage(bytes);
  if (!type || !ACCEPTED.includes(type)) {
    throw new SandboxError(
      'invalid_image_format',
      `unsupported image format${type ? ` (${type})` : ''}: send PNG, JPEG or WebP`,
    );
  }
  try {
    const { width, height } = await sharp(bytes).metadata();
    if (!width || !height) throw new Error('no size');
  } catch {
    throw new SandboxError('invalid_image_format', 'the image is corrupt and cannot be decoded');
  }
  return bytes;
}

async function fetchBytes(value: string, context: ImageSourceContext): Promise<Uint8Array> {
  const data = DATA_URI.exec(value);
  if (data) {
    const payload = value.slice(data[0].length);
    // Refuse by size before decoding a huge string.
    if (Math.floor((payload.length * 3) / 4) > IMAGE_MAX_BYTES + 2) {
      throw new SandboxError('image_too_large', `image is larger than ${IMAGE_MAX_BYTES} bytes (10 MB)`);
    }
    return Buffer.from(payload, 'base64');
  }
  if (value.startsWith(context.baseUrl)) return ownFile(new URL(value).pathname, context);
  if (/^https:\/\//i.test(value)) {
    if (!URL.canParse(value)) throw new SandboxError('invalid_image_format', 'image is not a valid URL');
    return promptPng(value, 0, 512, 512);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) {
    throw new SandboxError('invalid_image_format', 'image URLs must be public https URLs');
  }
  if (context.allowRawBase64 && /^[A-Za-z0-9+/]+={0,2}$/.test(value)) return Buffer.from(value, 'base64');
  throw new SandboxError(
    'invalid_image_format',
    'image must be an https URL or a base64 string with a data:image/...;base64, prefix',
  );
}

async function ownFile(pathname: string, context: ImageSourceContext): Promise<Uint8Array> {
  const found = context.files.lookup(pathname, context.now);
  if (!found) throw new SandboxError('invalid_image_format', `image URL ${pathname} is not a file of this sandbox`);
  if (found.expired)
    throw new SandboxError('invalid_image_format', `image URL ${pathname} has expired (results are kept 24 hours)`);
  return context.files.bytes(found.file);
}
