/**
 * The status of a video job, both ways decisions.md allows: POST /v1/video/status with
 * {"request_id": "..."}, or GET /v1/video/{request_id}. Polls too close together are throttled
 * with a 429 and a short Retry-After when the fault layer says so.
 */
import type { FaultPlan } from '../faults.js';
import { SandboxError } from '../sandbox-error.js';
import type { SandboxState } from '../sandbox-state.js';

const THROTTLE_RETRY_SECONDS = 5;

export function videoStatus(
  sandbox: SandboxState,
  account: string,
  path: string,
  body: Record<string, unknown>,
  plan: FaultPlan,
) {
  const id = path === '/v1/video/status' ? body.request_id : path.slice('/v1/video/'.length);
  if (typeof id !== 'string' || id === '') throw new SandboxError('invalid_parameter', 'request_id is required');
  const job = sandbox.jobs.find(id, account);
  if (!job) throw new SandboxError('job_not_found', `no video job ${id}`);
  const now = sandbox.now();
  const minimum = sandbox.config.faults?.poll_min_interval_ms;
  const tooSoon = minimum !== undefined && job.lastPollAt !== undefined && now - job.lastPollAt < minimum;
  if (plan.throttle || tooSoon) {
    sandbox.stats.fault('poll_throttle');
    throw new SandboxError(
      'rate_limit_exceeded',
      'polling too often: wait before the next status request',
      THROTTLE_RETRY_SECONDS,
    );
  }
  job.lastPollAt = now;
  const terminal = job.status === 'completed' || job.status === 'error';
  return {
    success: true,
    request_id: job.id,
    status: job.status,
    ...(job.videoUrl !== undefined && { video_url: job.videoUrl }),
    ...(terminal && { credits_used: job.creditsUsed }),
    ...(job.message !== undefined && { message: job.message }),
  };
}
