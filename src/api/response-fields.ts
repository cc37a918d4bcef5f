/**
 * Reading the service's answers tolerantly (decisions.md): each field is looked for in its
 * documented place and then its listed alternatives, each value checked with zod, first match
 * wins. A pipeline can add its own path first (`api.response_paths`). An answer that has none of
 * them is an error naming the field, where it looked, and the request_id, never a silent blank.
 */
import * as z from 'zod';

export type FieldPath = readonly (string | number)[];

export const FIELD_PATHS = {
  request_id: [['request_id'], ['requestId'], ['id']],
  credits_used: [['credits_used'], ['credits'], ['cost']],
  images: [['images']],
  image_url: [['image_url'], ['url'], ['image', 'url'], ['images', 0, 'url'], ['images', 0]],
  audio_url: [['audio_url'], ['url'], ['audio', 'url']],
  duration_seconds: [['duration_seconds'], ['duration']],
  video_url: [['video_url'], ['url'], ['video', 'url'], ['output', 'url'], ['result', 'video_url']],
  status: [['status'], ['state']],
  error_code: [['code'], ['error_code'], ['error', 'code'], ['error']],
  error_message: [['message'], ['error', 'message'], ['error_description']],
} as const satisfies Record<string, readonly FieldPath[]>;

export type FieldName = keyof typeof FIELD_PATHS;

export const urlValue = z.string().refine((value) => URL.canParse(value), 'not a URL');
export const textValue = z.string().min(1);
export const countValue = z.number().nonnegative();
/** `images`: [{url}] or ["url"]. */
export const urlList = z
  .array(z.union([z.object({ url: urlValue }), urlValue]))
  .min(1)
  .transform((items) => items.map((item) => (typeof item === 'string' ? item : item.url)));

/** "video.href" or "images[0].url" from the pipeline's api.response_paths, as a path. */
export function parseFieldPath(text: string): FieldPath {
  return text
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

export function showPath(path: FieldPath): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i > 0 ? '.' : ''}${part}`)).join('');
}

function at(body: unknown, path: FieldPath): unknown {
  let value = body;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

export class ResponseReader {
  readonly #extra: Partial<Record<FieldName, FieldPath>>;

  constructor(extra: Partial<Record<FieldName, string>> = {}) {
    this.#extra = Object.fromEntries(
      Object.entries(extra).map(([field, path]) => [field, parseFieldPath(path as string)]),
    );
  }

  paths(field: FieldName): FieldPath[] {
    const extra = this.#extra[field];
    return extra ? [extra, ...FIELD_PATHS[field]] : [...FIELD_PATHS[field]];
  }

  /** The first place the field is found with a valid value, or undefined. */
  read<T>(body: unknown, field: FieldName, schema: z.ZodType<T>): T | undefined {
    for (const path of this.paths(field)) {
      const parsed = schema.safeParse(at(body, path));
      if (parsed.success) return parsed.data;
    }
    return undefined;
  }

  /** Where the reader looked for a field, for the message when it found nothing. */
  lookedFor(field: FieldName): string {
    return this.paths(field).map(showPath).join(', ');
  }
}
