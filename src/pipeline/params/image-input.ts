/**
 * What an image field holds: an https URL, a data URI, a local file (relative to the pipeline
 * file), or the output of an earlier step of the same row.
 */
import path from 'node:path';
import { type ImageMediaType, SNIFF_BYTES, sniffImage } from '../../media/sniff-image.js';

export type ImageInput =
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'data-uri';
      readonly uri: string;
      readonly mediaType: string;
      readonly bytes: number;
      /** The type its first bytes show, like a local file's; undefined when they are no image. */
      readonly content: ImageMediaType | undefined;
    }
  | { readonly kind: 'file'; readonly path: string; readonly shown: string }
  | { readonly kind: 'output'; readonly step: string; readonly index: number };

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)((?:;[\w-]+=[^;,]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Base64 characters that decode to the bytes sniffImage needs. */
const SNIFF_CHARS = Math.ceil(SNIFF_BYTES / 3) * 4;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

export function classifyImage(text: string, baseDir: string): ImageInput | { readonly error: string } {
  const value = text.trim();
  if (value === '') return { error: 'is empty: expected an https URL, a data URI or a local image file' };
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'https') {
    return URL.canParse(value)
      ? { kind: 'url', url: value }
      : { error: `is not a valid URL: ${JSON.stringify(value)}` };
  }
  if (scheme === 'http') return { error: `the service takes https URLs only, got ${JSON.stringify(shorten(value))}` };
  if (scheme) return { error: `unsupported URL scheme "${scheme}": expected https, a data URI or a local file` };
  if (value.toLowerCase().startsWith('data:')) return classifyDataUri(value);
  return { kind: 'file', path: path.resolve(baseDir, value), shown: value };
}

function classifyDataUri(value: string): ImageInput | { readonly error: string } {
  const match = DATA_URI.exec(value);
  if (!match?.[1]) return { error: 'is a data URI without ";base64,": expected data:image/<type>;base64,<data>' };
  const payload = value.slice(match[0].length);
  if (!BASE64.test(payload) || payload.length % 4 === 1) {
    return { error: 'is a data URI whose data is not base64 (A-Z, a-z, 0-9, + and /, then up to two =)' };
  }
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((payload.length * 3) / 4) - padding;
  const content = sniffImage(Buffer.from(payload.slice(0, SNIFF_CHARS), 'base64'));
  return { kind: 'data-uri', uri: value, mediaType: match[1].toLowerCase(), bytes, content };
}

function shorten(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}
