/**
 * Video jobs: `pending`, then `processing`, then `completed` or `error` after the configured
 * time, on the sandbox clock. Credits are taken when a job completes (nothing on error, as the
 * sandbox decides for what the reference leaves open); a job whose account can no longer pay at
 * that moment ends in error instead. Jobs settle whenever the sandbox is asked anything.
 */
import type { ClipRequest } from './media/clip.js';

export type JobStatus = 'pending' | 'processing' | 'completed' | 'error';

export interface VideoJob {
  readonly id: string;
  readonly account: string;
  readonly credits: number;
  readonly idempotencyKey: string | undefined;
  readonly createdAt: number;
  readonly durationMs: number;
  readonly pendingMs: number;
  readonly failure: string | undefined;
  readonly clip: ClipRequest;
  status: JobStatus;
  videoUrl?: string;
  creditsUsed: number;
  message?: string;
  lastPollAt?: number;
}

export interface Settlement {
  /** Take the job's credits; false when the account cannot pay. */
  charge(job: VideoJob): boolean;
  /** Register the result file; returns its URL. */
  publish(job: VideoJob): string;
}

export class VideoJobs {
  readonly #jobs = new Map<string, VideoJob>();
  readonly #open = new Set<VideoJob>();

  submit(job: Omit<VideoJob, 'status' | 'creditsUsed'>): VideoJob {
    const created: VideoJob = { ...job, status: 'pending', creditsUsed: 0 };
    this.#jobs.set(job.id, created);
    this.#open.add(created);
    return created;
  }

  /** A job of this account, or undefined: another account's job is as good as unknown. */
  find(id: string, account: string): VideoJob | undefined {
    const job = this.#jobs.get(id);
    return job?.account === account ? job : undefined;
  }

  settle(now: number, settlement: Settlement): void {
    for (const job of this.#open) {
      const elapsed = now - job.createdAt;
      if (elapsed < job.pendingMs) continue;
      if (elapsed < job.durationMs) {
        job.status = 'processing';
        continue;
      }
      this.#open.delete(job);
      if (job.failure !== undefined) {
        job.status = 'error';
        job.message = job.failure;
      } else if (!settlement.charge(job)) {
        job.status = 'error';
        job.message = 'insufficient credits when the job completed; nothing was charged';
      } else {
        job.status = 'completed';
        job.creditsUsed = job.credits;
        job.videoUrl = settlement.publish(job);
      }
    }
  }

  counts(): Record<JobStatus, number> {
    const counts: Record<JobStatus, number> = { pending: 0, processing: 0, completed: 0, error: 0 };
    for (const job of this.#jobs.values()) counts[job.status]++;
    return counts;
  }
}
