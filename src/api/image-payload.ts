/**
 * An image input as the request sends it: an https URL as is, a data URI as is, a local file read
 * and turned into a data URI with its media type sniffed from its bytes. The 10 MB limit is
 * checked here, before anything is sent: a too-large image fails locally, with no request.
 */
import { readFile } from 'node:fs/promises';
import { IMAGE_MAX_BYTES } from '../catalog/limits.js';
import { sniffImage } from '../media/sniff-image.js';
import { ApiError } from './api-error.js';
import type { ImageSource } from './request-params.js';

export async function imagePayload(
  image: ImageSource,
  limitBytes: number,
  method: string,
  path: string,
): Promise<string> {
  const refuse = (code: string, message: string) =>
    new ApiError({
      method,
      path,
      status: undefined,
      code,
      message: `${message}; checked before sending, nothing was sent`,
      requestId: undefined,
      attempt: 0,
      kind: 'permanent',
      ambiguous: false,
    });
  switch (image.kind) {
    case 'url':
      return image.url;
    case 'data-uri':
      if (image.bytes > limitBytes)
        throw refuse('image_too_large', `the data URI image is ${image.bytes} bytes; the limit is ${limitBytes}`);
      return image.uri;
    case 'file': {
      const bytes = await readFile(image.path).catch((error: NodeJS.ErrnoException) => {
        throw refuse('image_unreadable', `cannot read ${image.shown}: ${error.code ?? error.message}`);
      });
      if (bytes.length > limitBytes)
        throw refuse('image_too_large', `${image.shown} is ${bytes.length} bytes; the limit is ${limitBytes}`);
      const type = sniffImage(bytes);
      if (!type) throw refuse('invalid_image_format', `${image.shown} is not a PNG, JPEG, WebP or GIF image`);
      return `data:${type};base64,${bytes.toString('base64')}`;
    }
  }
}

export const DEFAULT_IMAGE_LIMIT = IMAGE_MAX_BYTES;
