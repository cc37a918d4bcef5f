/**
 * Complete the video jobs that are due: charge the account, publish the clip (named after the job:
 * videoFileId), and record it before anything answers with it.
 */
import { resultUrl } from './endpoints/endpoint.js';
import { renderClip } from './media/clip.js';
import type { SandboxState } from './sandbox-state.js';
import { videoFileId } from './video-jobs.js';

export function settleJobs(sandbox: SandboxState): void {
  const now = sandbox.now();
  const finished = sandbox.jobs.settle(now, {
    charge: (job) => {
      const account = sandbox.accounts.all().find((candidate) => candidate.name === job.account);
      if (!account || account.credits < job.credits) return false;
      account.credits -= job.credits;
      sandbox.stats.charge({ account: job.account, credits: job.credits, idempotencyKey: job.idempotencyKey });
      return true;
    },
    publish: (job) => resultUrl(sandbox, 'video/mp4', () => renderClip(job.clip), videoFileId(job.id)),
  });
  if (sandbox.recorder) for (const job of finished) sandbox.recorder.settled(job, now);
}
