/** Image inputs: local files exist and are images within the size limit; data URIs likewise. */
import { IMAGE_MAX_BYTES } from '../../catalog/limits.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import type { ImageInput } from '../params/image-input.js';
import type { Finding, RuleContext, StepRule } from './step-rule.js';

const FORMATS: readonly string[] = OPEN_ITEMS.imageFormats.client;

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function sizeFinding(bytes: number, limit: number, what: string): Finding | undefined {
  if (bytes <= limit) return undefined;
  // Just over the limit, both round to the same figure; then the exact bytes say why.
  const [size, max] =
    megabytes(bytes) === megabytes(limit)
      ? [`${bytes.toLocaleString('en-US')} bytes`, `${limit.toLocaleString('en-US')} bytes`]
      : [megabytes(bytes), megabytes(limit)];
  return { field: 'image', message: `${what} is ${size}; the limit is ${max} (image_too_large)` };
}

export const imageInput: StepRule = {
  code: 'image-input',
  operations: ['edit', 'video', 'upscale', 'remove-bg'],
  reads: ['image'],
  check: (params, context) => {
    const image = params.image;
    if (typeof image !== 'object') return undefined;
    // Video's limit is not published: configurable, 10 MB by default like edit and upscale.
    const limit = context.operation === 'video' ? context.limits.videoImageMaxBytes : IMAGE_MAX_BYTES;
    return checkImage(image, limit, context);
  },
};

function checkImage(image: ImageInput, limit: number, context: RuleContext): Finding | undefined {
  if (image.kind === 'data-uri') {
    const { mediaType, bytes, content } = image;
    if (!FORMATS.includes(mediaType)) {
      return {
        field: 'image',
        message: `data URI of type ${mediaType}: expected ${FORMATS.join(', ')} (invalid_image_format)`,
      };
    }
    if (content === undefined) {
      return {
        field: 'image',
        message: `the data URI's data is not a PNG, JPEG, WebP or GIF image (judged by its content, not its declared ${mediaType})`,
      };
    }
    if (content !== mediaType) {
      return {
        field: 'image',
        severity: 'warning',
        message: `the data URI says ${mediaType} but its data is ${content}; the service may go by either`,
      };
    }
    return sizeFinding(bytes, limit, 'the data URI image');
  }
  if (image.kind !== 'file') return undefined;
  const { path, shown } = image;
  const inspection = context.files.inspect(path);
  if (!inspection.ok)
    return {
      field: 'image',
      message: `file "${shown}" ${inspection.reason} (paths are relative to the pipeline file)`,
    };
  if (!inspection.mediaType) {
    return {
      field: 'image',
      message: `file "${shown}" is not a PNG, JPEG, WebP or GIF image (judged by its content, not its name)`,
    };
  }
  return sizeFinding(inspection.bytes, limit, `file "${shown}"`);
}
