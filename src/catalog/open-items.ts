/**
 * What the reference leaves open ("not shown"), with the client's default and the sandbox's
 * concrete behaviour, as decided in shared/api/decisions.md. Everything here is a guess about the
 * real service: the client makes it configurable, the sandbox picks one behaviour.
 */
import type { AspectRatio } from './models.js';

export interface OpenItem<Client, Sandbox = Client> {
  readonly client: Client;
  readonly sandbox: Sandbox;
  readonly note: string;
}

export interface DimensionLimit {
  readonly min: number;
  readonly max: number;
  readonly multipleOf: number;
}

/** The sandbox's invented prices for iota-2 and iota-2-edit: one grid for both. */
const IOTA_SANDBOX_GRID: Readonly<Record<string, number>> = {
  '1k-low': 150,
  '1k-medium': 250,
  '1k-high': 400,
  '2k-low': 300,
  '2k-medium': 500,
  '2k-high': 800,
  '4k-low': 600,
  '4k-medium': 1000,
  '4k-high': 1600,
};

export const OPEN_ITEMS = {
  videoStatusEndpoint: {
    client: { method: 'POST', path: '/v1/video/status' },
    sandbox: { method: 'POST', path: '/v1/video/status' },
    note: 'Sandbox also serves GET /v1/video/{request_id}.',
  } satisfies OpenItem<{ method: 'POST' | 'GET'; path: string }>,
  videoFieldNames: {
    client: { aspect_ratio: 'aspect_ratio', duration: 'duration' },
    sandbox: { aspect_ratio: 'aspect_ratio', duration: 'duration' },
    note: 'Names of the aspect ratio and duration request fields.',
  } satisfies OpenItem<{ aspect_ratio: string; duration: string }>,
  videoExpectedSeconds: {
    client: 120,
    sandbox: 120,
    note: 'How long a video job usually takes; plans estimate polls from it (the reference: 30 s to several minutes).',
  } satisfies OpenItem<number>,
  removeBgCredits: {
    client: 100,
    sandbox: 100,
    note: 'Cost not published: plans use pricing: or this default and mark the total estimated.',
  } satisfies OpenItem<number>,
  iotaDefaults: {
    client: null,
    sandbox: { resolution: '1k', quality: 'medium' },
    note: 'Defaults of resolution and quality for iota-2 / iota-2-edit; the client sends only what the pipeline sets.',
  } satisfies OpenItem<null, { resolution: string; quality: string }>,
  generateDimensions: {
    client: null,
    sandbox: { min: 256, max: 2048, multipleOf: 64 },
    note: 'Accepted width/height per model: not checked unless the pipeline sets limits:. Sandbox: theta-pro-ultra up to 8192.',
  } satisfies OpenItem<DimensionLimit | null>,
  generateDimensionsUltra: {
    client: null,
    sandbox: { min: 256, max: 8192, multipleOf: 64 },
    note: 'theta-pro-ultra ("up to 8K output").',
  } satisfies OpenItem<DimensionLimit | null>,
  defaultDimension: {
    client: null,
    sandbox: 1024,
    note: '"Default 1024 for most models"; the client leaves width/height out when the pipeline does.',
  } satisfies OpenItem<null, number>,
  numImagesMax: {
    client: null,
    sandbox: 4,
    note: 'Upper bound of num_images: not checked unless limits.max_num_images is set.',
  } satisfies OpenItem<number | null, number>,
  upscaleScale: {
    client: { default: 2, minExclusive: 0, max: null },
    sandbox: { default: 2, minExclusive: 1, max: 4 },
    note: 'Range and default of scale; the client only requires it to be positive.',
  } satisfies OpenItem<{ default: number; minExclusive: number; max: number | null }>,
  i2vAspectRatioFallback: {
    client: null,
    sandbox: 'first listed ratio',
    note: 'Aspect ratios of image-to-video models are not listed: the client does not check them.',
  } satisfies OpenItem<AspectRatio | null, string>,
  videoImageMaxBytes: {
    client: 10_000_000,
    sandbox: 10_000_000,
    note: 'Maximum image size for video: like edit/upscale (configurable with limits.video_image_max_bytes).',
  } satisfies OpenItem<number>,
  imageFormats: {
    client: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
    sandbox: ['image/png', 'image/jpeg', 'image/webp'],
    note: 'Accepted image formats are not listed; the client accepts what it can recognise by magic bytes.',
  } satisfies OpenItem<readonly string[]>,
  videoCreditsAfterError: {
    client: 0,
    sandbox: 0,
    note: 'Whether credits are returned after a video error: assume none are deducted.',
  } satisfies OpenItem<number>,
  pollsCountAgainstQuota: {
    client: true,
    sandbox: true,
    note: 'The reference counts "all endpoints"; plans count status polls as requests.',
  } satisfies OpenItem<boolean>,
  imageUrlRetentionMs: {
    client: 24 * 60 * 60 * 1000,
    sandbox: 24 * 60 * 60 * 1000,
    note: 'Retention of generate/edit image URLs: assumed 24 hours like the others.',
  } satisfies OpenItem<number>,
  iotaSandboxCredits: {
    client: null,
    sandbox: {
      'iota-2': IOTA_SANDBOX_GRID,
      'iota-2-edit': IOTA_SANDBOX_GRID,
    },
    note: 'Prices per image (iota-2) or edit (iota-2-edit) by "<resolution>-<quality>"; the client has none and needs pricing:.',
  } satisfies OpenItem<null, Readonly<Record<string, Readonly<Record<string, number>>>>>,
  videoDefaultDuration: {
    client: null,
    sandbox: 'the first duration the model lists',
    note: 'Default video duration; the client sends only what the pipeline sets.',
  } satisfies OpenItem<null, string>,
  unnamedErrorCodes: {
    client: null,
    sandbox: {
      prompt_too_long: 400,
      invalid_num_images: 400,
      invalid_parameter: 400,
      invalid_duration: 400,
      invalid_json: 400,
      request_too_large: 413,
      job_not_found: 404,
      not_found: 404,
      method_not_allowed: 405,
    },
    note: 'Conditions the reference implies but names no code for (a prompt over 4,000 characters, num_images over 4...): the sandbox answers with these.',
  } satisfies OpenItem<null, Readonly<Record<string, number>>>,
  ttsVoices: {
    client: null,
    sandbox: { 'tts-alpha': ['alloy', 'breeze', 'cedar'], 'beta-tts': ['aurora', 'basalt'] },
    note: 'Voice IDs are not listed: the client does not check voice_id.',
  } satisfies OpenItem<null, Readonly<Record<string, readonly string[]>>>,
} as const;
