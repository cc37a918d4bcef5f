/**
 * What the reference leaves open ("not shown"), with the client's default and the sandbox's
 * concrete behaviour, as docs/service.md lists them. Everything here is a guess about the
 * real service: the client makes it configurable, the sandbox picks one behaviour.
 *
 * Only the questions the client answers are here: this catalogue ships with the client. Where
 * the client assumes nothing (iota-2's prices by resolution and quality, accepted sizes,
 * num_images, voices, the codes of errors the reference names none for), the sandbox's answers
 * are its own, in src/sandbox/ (sandbox-limits.ts, endpoints/model-pricing.ts, sandbox-error.ts).
 */
export interface OpenItem<Client, Sandbox = Client> {
  readonly client: Client;
  readonly sandbox: Sandbox;
  readonly note: string;
}

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
  upscaleScale: {
    client: { default: 2, minExclusive: 0, max: null },
    sandbox: { default: 2, minExclusive: 1, max: 4 },
    note: 'Range and default of scale; the client only requires it to be positive.',
  } satisfies OpenItem<{ default: number; minExclusive: number; max: number | null }>,
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
} as const;
