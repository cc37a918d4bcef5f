/** Field limits, plans and video timing, as the reference states them. */

/** prompt: generate, video, edit. */
export const PROMPT_MAX_CHARS = 4000;
/** text: tts. */
export const TEXT_MAX_CHARS = 5000;

/**
 * "Image size: 10 MB" (edit, upscale). The reference does not say whether MB means 10^6 or 2^20
 * bytes; we take the smaller so a file we accept is never one the service rejects.
 */
export const IMAGE_MAX_BYTES = 10_000_000;

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLANS)[number];

/** Requests per rolling 24 hours, per API key, every endpoint counted. Enterprise: custom. */
export const PLAN_DAILY_REQUESTS: Readonly<Record<PlanName, number | null>> = {
  free: 100,
  pro: 1000,
  enterprise: null,
};

export const QUOTA_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Audio, video and upscaled-image URLs stay available for 24 hours. */
export const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** "not more often than once per 5 seconds, otherwise requests may be throttled". */
export const VIDEO_POLL_INTERVAL_SECONDS = 5;
/** "5 minutes (60 attempts at 5-second intervals); after that the job is treated as failed and retried". */
export const VIDEO_POLL_TIMEOUT_SECONDS = 300;
export const VIDEO_POLL_MAX_ATTEMPTS = 60;
/** "from 30 seconds to several minutes". */
export const VIDEO_GENERATION_MIN_SECONDS = 30;
