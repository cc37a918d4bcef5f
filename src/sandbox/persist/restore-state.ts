/**
 * A saved state put into a starting sandbox: balances (its accounts' configured credits less what
 * was spent), the quota's requests, the charge counters, stored answers, video jobs (one not
 * finished settles on the clock as usual) and result files, whose bytes are read back from disk,
 * or, for a clip, made from its job, when first asked for.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { renderClip } from '../media/clip.js';
import type { SandboxState } from '../sandbox-state.js';
import type { VideoJob } from '../video-jobs.js';
import type { FileRecord, JobRecord, StateData } from './state-data.js';

export function restoreState(state: SandboxState, data: StateData, dir: string): void {
  for (const account of state.accounts.all()) {
    const saved = data.accounts[account.name];
    if (!saved) continue;
    account.credits -= saved.spent;
    account.restoreRequests(saved.requests);
  }
  state.stats.restoreCharges(data.charges);
  for (const answer of data.answers)
    state.idempotency.restore(answer.account, answer.key, { status: answer.status, body: answer.body, at: answer.at });
  const jobs = new Map(data.jobs.map((job) => [job.id, job]));
  for (const job of data.jobs) state.jobs.restore(videoJob(job, dir));
  for (const file of data.files) {
    state.files.restore({ id: file.id, mediaType: file.type, createdAt: file.at, render: renderOf(file, jobs, dir) });
  }
}

function videoJob(record: JobRecord, dir: string): VideoJob {
  const open = record.status !== 'completed' && record.status !== 'error';
  // Only a job still to finish needs its start image in memory; a finished one's clip reads it when made.
  const startImage =
    open && record.clip.start_image !== undefined ? readStart(dir, record.clip.start_image) : undefined;
  return {
    id: record.id,
    account: record.account,
    credits: record.credits,
    idempotencyKey: record.key,
    createdAt: record.created_at,
    durationMs: record.duration_ms,
    pendingMs: record.pending_ms,
    failure: record.failure,
    clip: {
      prompt: record.clip.prompt,
      startImage,
      aspectRatio: record.clip.aspect_ratio,
      seconds: record.clip.seconds,
    },
    status: record.status,
    creditsUsed: record.credits_used,
    ...(record.video_url !== undefined && { videoUrl: record.video_url }),
    ...(record.message !== undefined && { message: record.message }),
  };
}

function renderOf(
  file: FileRecord,
  jobs: ReadonlyMap<string, JobRecord>,
  dir: string,
): (() => Promise<Uint8Array>) | undefined {
  const source = file.source;
  if (!source) return undefined;
  if ('file' in source) return () => readFile(path.join(dir, source.file));
  const job = jobs.get(source.job);
  if (!job) return undefined;
  const { prompt, aspect_ratio: aspectRatio, seconds, start_image: start } = job.clip;
  return async () =>
    renderClip({
      prompt,
      aspectRatio,
      seconds,
      startImage: start === undefined ? undefined : await readFile(path.join(dir, start)),
    });
}

/** A start image that cannot be read (a damaged folder): the clip is made from the prompt instead. */
function readStart(dir: string, relative: string): Uint8Array | undefined {
  try {
    return readFileSync(path.join(dir, relative));
  } catch {
    return undefined;
  }
}
