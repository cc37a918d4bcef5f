/**
 * A video step from submit to result. Polls follow the shared schedule (the interval, growing to
 * its cap if allowed; never faster than every 5 s against anything but the loopback sandbox), each
 * poll inside the caller's slot and the waits outside it. A status other than `completed` or
 * `error` means still running. Past the timeout (the reference's 5 minutes, 60 polls) the job is
 * treated as failed and, by default, submitted again under a new idempotency key; every
 * request_id is kept so the runner can look at abandoned jobs once more at the end.
 */
import { VIDEO_POLL_INTERVAL_SECONDS } from '../catalog/limits.js';
import { AssetlineError, EXIT } from '../errors.js';
import type { ApiClient, CallOptions, VideoState } from './api-client.js';
import { ApiError } from './api-error.js';
import { isLoopbackUrl } from './loopback.js';
import { pollDelays } from './poll-schedule.js';
import type { VideoRequest } from './request-params.js';

/** Submissions of one step at most: the first and this many after timeouts. */
export const MAX_RESUBMITS = 2;

export interface VideoJobCall extends CallOptions {
  /** Told of each submission as soon as its request_id is known; polling waits for it (to save it first). */
  readonly onSubmitted?: ((requestId: string, idempotencyKey: string | undefined) => void | Promise<void>) | undefined;
  /** Jobs an earlier run submitted, oldest first: the last is polled again instead of submitting anew. */
  readonly resume?: readonly string[] | undefined;
  /** Told of each poll's answer. */
  readonly onPolled?: ((state: VideoState) => void) | undefined;
}

export interface VideoDone {
  readonly requestId: string;
  readonly url: string;
  readonly creditsUsed: number | undefined;
  /** Every submission of the step, oldest first; all but the last were abandoned. */
  readonly requestIds: readonly string[];
  readonly polls: number;
}

/** The job ended in `error`, or timed out on every submission: the step fails (exit 1). */
export class VideoJobError extends AssetlineError {
  declare readonly code: 'video-job-failed';
  readonly requestId: string;
  readonly requestIds: readonly string[];
  readonly reason: 'error' | 'timeout';

  constructor(reason: 'error' | 'timeout', message: string, requestId: string, requestIds: readonly string[]) {
    super('video-job-failed', message, EXIT.stepsFailed);
    this.name = 'VideoJobError';
    this.reason = reason;
    this.requestId = requestId;
    this.requestIds = requestIds;
  }
}

/** The key of the n-th submission: the step's own key first, then derived ones (same on a rerun). */
export function resubmitKey(key: string | undefined, submission: number): string | undefined {
  return key === undefined || submission === 1 ? key : `${key}/resubmit-${submission - 1}`;
}

export async function runVideoJob(client: ApiClient, params: VideoRequest, call: VideoJobCall): Promise<VideoDone> {
  const requestIds: string[] = [...(call.resume ?? [])];
  let polls = 0;
  let current = requestIds.at(-1);
  for (let submission = requestIds.length + (current === undefined ? 1 : 0); ; submission++) {
    if (current === undefined) {
      const idempotencyKey = resubmitKey(call.idempotencyKey, submission);
      const submitted = await client.submitVideo(params, { ...call, idempotencyKey });
      requestIds.push(submitted.requestId);
      await call.onSubmitted?.(submitted.requestId, idempotencyKey);
      current = submitted.requestId;
    }
    let outcome: PollOutcome;
    try {
      outcome = await pollVideoJob(client, current, call);
    } catch (error) {
      // A job the service no longer knows (resumed long after) is submitted again.
      if (error instanceof ApiError && error.status === 404 && call.resume?.includes(current)) {
        current = undefined;
        continue;
      }
      throw error;
    }
    polls += outcome.polls;
    if (outcome.state === 'completed')
      return { requestId: current, url: outcome.url, creditsUsed: outcome.creditsUsed, requestIds, polls };
    if (outcome.state === 'error') {
      throw new VideoJobError('error', `video job ${current} ended in error: ${outcome.message}`, current, requestIds);
    }
    const policy = client.api.video.onTimeout;
    if (policy === 'fail' || submission > MAX_RESUBMITS) {
      const tried = submission > 1 ? ` after ${submission} submissions` : '';
      throw new VideoJobError(
        'timeout',
        `video job ${current} did not finish within ${client.api.video.timeoutSeconds} s${tried}`,
        current,
        requestIds,
      );
    }
    current = undefined;
  }
}

export type PollOutcome =
  | {
      readonly state: 'completed';
      readonly url: string;
      readonly creditsUsed: number | undefined;
      readonly polls: number;
    }
  | { readonly state: 'error'; readonly message: string; readonly polls: number }
  | { readonly state: 'timeout'; readonly polls: number };

/**
 * Poll one job until it ends or its time is up. With `keep-polling` the time is up only after four
 * timeouts. Also how a resumed run picks up a job it submitted before.
 */
export async function pollVideoJob(client: ApiClient, requestId: string, call: VideoJobCall): Promise<PollOutcome> {
  const video = client.api.video;
  const floor = isLoopbackUrl(client.baseUrl) ? 0 : VIDEO_POLL_INTERVAL_SECONDS;
  const schedule = {
    intervalSeconds: Math.max(floor, video.pollIntervalSeconds),
    maxIntervalSeconds: Math.max(floor, video.pollIntervalMaxSeconds),
  };
  const limitSeconds = video.timeoutSeconds * (video.onTimeout === 'keep-polling' ? 4 : 1);
  let elapsed = 0;
  let polls = 0;
  for (const delay of pollDelays(schedule)) {
    if (elapsed + delay > limitSeconds + 1e-9) return { state: 'timeout', polls };
    await client.environment.sleep(delay * 1000, call.signal);
    elapsed += delay;
    polls++;
    let state: VideoState;
    try {
      state = await client.videoStatus(requestId, call);
    } catch (error) {
      // A poll that failed even after its retries is one missed look, not a failed job.
      if (error instanceof ApiError && error.kind === 'transient') continue;
      throw error;
    }
    call.onPolled?.(state);
    if (state.state === 'completed' && state.url !== undefined)
      return { state: 'completed', url: state.url, creditsUsed: state.creditsUsed, polls };
    if (state.state === 'error') return { state: 'error', message: state.message ?? `status "${state.status}"`, polls };
  }
  return { state: 'timeout', polls };
}
