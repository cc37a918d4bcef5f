/** Complete the video jobs that are due: charge the account, publish the clip. */
import { resultUrl } from './endpoints/endpoint.js';
import { renderClip } from './media/clip.js';
import type { SandboxState } from './sandbox-state.js';

export function settleJobs(sandbox: SandboxState): void {
  sandbox.jobs.settle(sandbox.now(), {
    charge: (job) => {
      const account = sandbox.accounts.all().find((candidate) => candidate.name === job.account);
      if (!account || account.credits < job.credits) return false;
      account.credits -= job.credits;
      sandbox.stats.charge({ account: job.account, credits: job.credits, idempotencyKey: job.idempotencyKey });
      return true;
    },
    publish: (job) => resultUrl(sandbox, 'video/mp4', () => renderClip(job.clip)),
  });
}
