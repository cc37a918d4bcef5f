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

/**
 * The id of a job's clip, made from the job's: whichever sandbox settles a job (two may, when two
 * runs resume one saved state at once: persist/), the clip has one name and one URL.
 */
export function videoFileId(jobId: string): string {
  return `vid_${jobId.replace(/^req_/, '')}`;
}

const NONE: readonly VideoJob[] = [];

export class VideoJobs {
  readonly #jobs = new Map<string, VideoJob>();
  readonly #open = new Set<VideoJob>();
  #onSubmit: ((job: VideoJob) => void) | undefined;

  submit(job: Omit<VideoJob, 'status' | 'creditsUsed'>): VideoJob {
    const created: VideoJob = { ...job, status: 'pending', creditsUsed: 0 };
    this.#jobs.set(job.id, created);
    this.#open.add(created);
    this.#onSubmit?.(created);
    return created;
  }

  /** Told of every new job: a sandbox that keeps its state saves it (persist/). */
  observe(listener: (job: VideoJob) => void): void {
    this.#onSubmit = listener;
  }

  /** A job an earlier sandbox of the same state took (persist/); one not finished settles as usual. */
  restore(job: VideoJob): void {
    this.#jobs.set(job.id, job);
    if (job.status !== 'completed' && job.status !== 'error') this.#open.add(job);
  }

  /** A job of this account, or undefined: another account's job is as good as unknown. */
  find(id: string, account: string): VideoJob | undefined {
    const job = this.#jobs.get(id);
    return job?.account === account ? job : undefined;
  }

  /** Finish the jobs that are due; returns those that finished now. */
  settle(now: number, settlement: Settlement): readonly VideoJob[] {
    // Called on every request: no array is made unless a job finishes.
    let finished: VideoJob[] | undefined;
    for (const job of this.#open) {
      const elapsed = now - job.createdAt;
      if (elapsed < job.pendingMs) continue;
      if (elapsed < job.durationMs) {
        job.status = 'processing';
        continue;
      }
      this.#open.delete(job);
      (finished ??= []).push(job);
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
    return finished ?? NONE;
  }

  counts(): Record<JobStatus, number> {
    const counts: Record<JobStatus, number> = { pending: 0, processing: 0, completed: 0, error: 0 };
    for (const job of this.#jobs.values()) counts[job.status]++;
    return counts;
  }
}
