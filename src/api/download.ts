/**
 * Downloading a result: streamed to a temporary file beside its destination with its SHA-256
 * computed on the way, checked (status, content type, magic bytes, a size cap), and renamed into
 * place, so a file at the destination is always whole. Transient failures are retried. Only https
 * (plain http only for the loopback sandbox), and no credentials are sent to the file host. A 404,
 * 410 or 403 means the result has expired, and the error says so.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AssetlineError, EXIT } from '../errors.js';
import { sniffImage } from '../media/sniff-image.js';
import { ApiError } from './api-error.js';
import type { HttpEngine } from './http-engine.js';
import { isLoopbackUrl } from './loopback.js';
import { classify } from './outcome-policy.js';
import { requestSignal } from './request-signal.js';
import { type Backoff, type RetryEnvironment, withRetries } from './retry.js';

export type ExpectedMedia = 'image' | 'audio' | 'video';

export interface Downloaded {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly mediaType: string;
  /** The first bytes (up to 64 KB): enough to read an image's size without decoding it. */
  readonly head: Uint8Array;
}

/** Bytes kept from the start of a file: image headers are well inside this. */
const HEAD_BYTES = 64 * 1024;
let downloads = 0;

/** Largest file accepted per kind: far above real results, low enough to stop a runaway body. */
export const MAX_BYTES: Readonly<Record<ExpectedMedia, number>> = {
  image: 256 * 1024 * 1024,
  audio: 64 * 1024 * 1024,
  video: 1024 * 1024 * 1024,
};

const CONTENT_TYPES: Readonly<Record<ExpectedMedia, readonly string[]>> = {
  image: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
  audio: ['audio/mpeg', 'audio/mp3'],
  video: ['video/mp4'],
};
/** Types a file host may use for anything; the magic bytes decide then. */
const GENERIC_TYPES = ['application/octet-stream', 'binary/octet-stream', ''];

/** The file host no longer has the result: the step fails (exit 1), and runs again next time. */
export class ResultExpiredError extends AssetlineError {
  declare readonly code: 'result-expired';
  readonly url: string;
  readonly status: number;

  constructor(url: string, status: number) {
    super(
      'result-expired',
      `the result at ${url} is gone (HTTP ${status}): results are kept 24 hours; the step has to run again to make a new one`,
      EXIT.stepsFailed,
    );
    this.name = 'ResultExpiredError';
    this.url = url;
    this.status = status;
  }
}

export interface DownloadOptions {
  readonly engine: HttpEngine;
  readonly environment: RetryEnvironment;
  readonly backoff: Backoff;
  readonly signal?: AbortSignal | undefined;
  readonly maxBytes?: number | undefined;
  /** Folders this client has made: one mkdir per folder, not per file. */
  readonly madeFolders?: Set<string> | undefined;
}

export async function downloadResult(
  url: string,
  destination: string,
  expected: ExpectedMedia,
  options: DownloadOptions,
): Promise<Downloaded> {
  const fail = (code: string, message: string, status?: number) =>
    new ApiError({
      method: 'GET',
      path: url,
      status,
      code,
      message,
      requestId: undefined,
      attempt: 0,
      kind: status === undefined ? 'permanent' : classify({ status, poll: false, retryAfterMs: undefined }),
      ambiguous: false,
    });
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw fail('invalid_url', 'the result URL is not a URL');
  }
  if (protocol !== 'https:' && !(protocol === 'http:' && isLoopbackUrl(url))) {
    throw fail(
      'insecure_url',
      `results are fetched over https only (plain http only from the local sandbox), got ${protocol}`,
    );
  }
  return withRetries((attempt) => downloadOnce(url, destination, expected, options, attempt, fail), {
    backoff: options.backoff,
    environment: options.environment,
    signal: options.signal,
  });
}

async function downloadOnce(
  url: string,
  destination: string,
  expected: ExpectedMedia,
  options: DownloadOptions,
  attempt: number,
  fail: (code: string, message: string, status?: number) => ApiError,
): Promise<Downloaded> {
  // The download's own signal, following the run's, undone when it ends (request-signal.ts).
  const signal = requestSignal(options.signal, undefined);
  try {
    return await receive(url, destination, expected, { ...options, signal: signal.signal }, attempt, fail);
  } finally {
    signal.dispose();
  }
}

async function receive(
  url: string,
  destination: string,
  expected: ExpectedMedia,
  options: DownloadOptions,
  attempt: number,
  fail: (code: string, message: string, status?: number) => ApiError,
): Promise<Downloaded> {
  let response: Response;
  try {
    // No Authorization: the key is for the API, not for the file host.
    response = await options.engine.fetch(url, { method: 'GET', headers: {}, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new ApiError({
      method: 'GET',
      path: url,
      status: undefined,
      code: 'connection_reset',
      message: `download failed: ${String((error as { cause?: unknown }).cause ?? error)}`,
      requestId: undefined,
      attempt,
      kind: 'transient',
      ambiguous: false,
    });
  }
  /** Drop a body that will not be read, so it does not hold its connection (closed if it was still coming). */
  const discard = async () => {
    await response.body?.cancel();
  };
  if (response.status === 404 || response.status === 410 || response.status === 403) {
    await discard();
    throw new ResultExpiredError(url, response.status);
  }
  if (response.status !== 200) {
    await discard();
    throw fail(`http_${response.status}`, `download answered HTTP ${response.status}`, response.status);
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!CONTENT_TYPES[expected].includes(type) && !GENERIC_TYPES.includes(type)) {
    await discard();
    throw fail(
      'unexpected_content_type',
      `expected ${expected === 'image' ? 'an image' : expected === 'audio' ? 'audio' : 'a video'}, got content type "${type}"`,
    );
  }
  const limit = options.maxBytes ?? MAX_BYTES[expected];
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await discard();
    throw fail('too_large', `the result is ${declared} bytes; more than the ${limit} accepted`);
  }

  const temporary = `${destination}.part-${process.pid}-${++downloads}`;
  const hash = createHash('sha256');
  let size = 0;
  const headChunks: Uint8Array[] = [];
  let headSize = 0;
  const handle = await openMakingFolder(temporary, options.madeFolders).catch(async (error: unknown) => {
    await discard().catch(() => undefined);
    throw error;
  });
  try {
    // One write per chunk as it comes, awaited, so a slow disk slows the reading (backpressure).
    // Leaving the loop early (too large, a failed write) cancels the body.
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > limit) throw fail('too_large', `the result passed ${limit} bytes; stopped reading`);
      if (headSize < HEAD_BYTES) {
        headChunks.push(chunk);
        headSize += chunk.length;
      }
      hash.update(chunk);
      await handle.write(chunk);
    }
    const head = Buffer.concat(headChunks).subarray(0, HEAD_BYTES);
    const mediaType = sniff(head, expected);
    if (!mediaType)
      throw fail(
        'not_a_result',
        `the bytes are not ${expected === 'image' ? 'a PNG, JPEG, WebP or GIF image' : expected === 'audio' ? 'MP3 audio' : 'an MP4 video'}`,
      );
    // No fsync per file: what a killed process wrote stays in the page cache. A file lost or cut
    // short by a power cut fails the size check when the next run looks for it, and is made again.
    await handle.close();
    await rename(temporary, destination);
    return { path: destination, bytes: size, sha256: hash.digest('hex'), mediaType, head };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    if (error instanceof ApiError || options.signal?.aborted) throw error;
    throw new ApiError({
      method: 'GET',
      path: url,
      status: undefined,
      code: 'connection_reset',
      message: `download broke off: ${String(error)}`,
      requestId: undefined,
      attempt,
      kind: 'transient',
      ambiguous: false,
    });
  }
}

/**
 * Opens a new file for writing, making its folder first unless this client made it already. A
 * folder removed since (by a person, or a test) is made again when the open finds it missing.
 */
async function openMakingFolder(file: string, madeFolders: Set<string> | undefined): Promise<FileHandle> {
  const folder = path.dirname(file);
  if (!madeFolders?.has(folder)) {
    await mkdir(folder, { recursive: true });
    madeFolders?.add(folder);
    return open(file, 'w');
  }
  try {
    return await open(file, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(folder, { recursive: true });
    return open(file, 'w');
  }
}

/** The media type the first bytes show, if it is the kind expected. */
export function sniff(head: Uint8Array, expected: ExpectedMedia): string | undefined {
  if (expected === 'image') return sniffImage(head);
  if (expected === 'audio') {
    const id3 = head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33;
    const frame = head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0;
    return id3 || frame ? 'audio/mpeg' : undefined;
  }
  const ftyp = head[4] === 0x66 && head[5] === 0x74 && head[6] === 0x79 && head[7] === 0x70;
  return ftyp ? 'video/mp4' : undefined;
}
