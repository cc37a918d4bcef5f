/**
 * What a sandbox that keeps its state writes down while it serves, and when: every change an
 * answer depends on is on disk before that answer is sent, so a session killed at any moment
 * leaves a state that agrees with everything its clients were told.
 *
 * - A request counted against the quota: a line at once.
 * - A create call: the files its answer names are rendered and saved (and a video job's start
 *   image), then one line records the charge, the answer under its Idempotency-Key, the files and
 *   the job together, then the answer is sent. Killed before that line: nothing of it counts (the
 *   client never had the answer, and its retry is done and charged afresh); after it: the retry
 *   gets the stored answer, and the files are there to download.
 * - A video job that finishes: a line with its charge and its clip's URL, before any poll can say
 *   so. The clip is made from the job (its prompt and saved start image) when first downloaded.
 */
import path from 'node:path';
import { EXTENSIONS, type FileStore, type StoredFile } from '../file-store.js';
import type { VideoJob, VideoJobs } from '../video-jobs.js';
import { writeAtomically } from './atomic-write.js';
import type { CreateRecord } from './log-records.js';
import type { SessionLog } from './session-log.js';
import type { FileRecord, JobRecord } from './state-data.js';

export interface CreateCommit {
  readonly account: string;
  readonly at: number;
  /** Credits charged by this call (0 when nothing was, or a video job is charged later). */
  readonly credits: number;
  readonly key: string | undefined;
  readonly answer: { readonly status: number; readonly body: unknown };
}

/** One create call's changes, recorded together. */
export interface CreateUnit {
  /** Run the call's work: the files and the job it makes are this unit's. */
  collect<T>(work: () => T): T;
  /** Save the unit's files, then write its line. Resolves once the answer may be sent. */
  commit(commit: CreateCommit): Promise<void>;
}

/** The request pipeline's view: see the module comment for when each is written. */
export interface StateRecorder {
  counted(account: string, at: number): void;
  unit(): CreateUnit;
  settled(job: VideoJob, at: number): void;
  close(at: number): void;
}

/** What a unit needs of its recorder. */
interface UnitHost {
  /** Where a file of this session goes, relative to the state folder and on disk. */
  place(part: 'files' | 'inputs', name: string): { relative: string; absolute: string };
  bytes(file: StoredFile): Promise<Uint8Array>;
  write(record: CreateRecord): void;
  collectInto(unit: Unit | undefined): void;
}

export class SessionRecorder implements StateRecorder {
  readonly #log: SessionLog;
  readonly #host: UnitHost;
  #collecting: Unit | undefined;

  /** `dir`: the state folder; `session`: this session's number (its files go under sessions/<n>/). */
  constructor(log: SessionLog, dir: string, session: number, files: FileStore, jobs: VideoJobs) {
    this.#log = log;
    this.#host = {
      place: (part, name) => {
        const relative = `sessions/${session}/${part}/${name}`;
        return { relative, absolute: path.join(dir, relative) };
      },
      bytes: (file) => files.bytes(file),
      write: (record) => log.append(record),
      collectInto: (unit) => (this.#collecting = unit),
    };
    files.observe((file) => this.#collecting?.file(file));
    jobs.observe((job) => this.#collecting?.job(job));
  }

  counted(account: string, at: number): void {
    this.#log.append({ t: 'request', account, at });
  }

  unit(): CreateUnit {
    return new Unit(this.#host);
  }

  settled(job: VideoJob, at: number): void {
    this.#log.append({
      t: 'settled',
      id: job.id,
      at,
      status: job.status === 'completed' ? 'completed' : 'error',
      credits_used: job.creditsUsed,
      ...(job.videoUrl !== undefined && { video_url: job.videoUrl }),
      ...(job.message !== undefined && { message: job.message }),
    });
  }

  close(at: number): void {
    this.#log.close(at);
  }
}

class Unit implements CreateUnit {
  readonly #host: UnitHost;
  readonly #saves: Promise<void>[] = [];
  readonly #files: FileRecord[] = [];
  #job: JobRecord | undefined;

  constructor(host: UnitHost) {
    this.#host = host;
  }

  collect<T>(work: () => T): T {
    this.#host.collectInto(this);
    try {
      return work();
    } finally {
      this.#host.collectInto(undefined);
    }
  }

  file(file: StoredFile): void {
    const place = this.#host.place('files', `${file.id}.${EXTENSIONS[file.mediaType]}`);
    this.#files.push({ id: file.id, type: file.mediaType, at: file.createdAt, source: { file: place.relative } });
    // Rendered now rather than on first download: the bytes must be on disk before the answer.
    this.#saves.push(this.#host.bytes(file).then((bytes) => writeAtomically(place.absolute, bytes)));
  }

  job(job: VideoJob): void {
    const start = job.clip.startImage;
    const place = start ? this.#host.place('inputs', job.id) : undefined;
    if (start && place) this.#saves.push(writeAtomically(place.absolute, start));
    this.#job = jobRecord(job, place?.relative);
  }

  async commit(commit: CreateCommit): Promise<void> {
    const saved = await Promise.allSettled(this.#saves);
    const failed = saved.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    // Nothing to keep: a refusal without a key charged nothing and will not be replayed.
    if (commit.key === undefined && commit.credits === 0 && this.#files.length === 0 && !this.#job) return;
    this.#host.write({
      t: 'create',
      account: commit.account,
      at: commit.at,
      credits: commit.credits,
      ...(commit.key !== undefined && { key: commit.key, answer: commit.answer }),
      ...(this.#files.length > 0 && { files: this.#files }),
      ...(this.#job && { job: this.#job }),
    });
  }
}

function jobRecord(job: VideoJob, startImage: string | undefined): JobRecord {
  return {
    id: job.id,
    account: job.account,
    credits: job.credits,
    ...(job.idempotencyKey !== undefined && { key: job.idempotencyKey }),
    created_at: job.createdAt,
    duration_ms: job.durationMs,
    pending_ms: job.pendingMs,
    ...(job.failure !== undefined && { failure: job.failure }),
    status: job.status,
    credits_used: job.creditsUsed,
    clip: {
      prompt: job.clip.prompt,
      aspect_ratio: job.clip.aspectRatio,
      seconds: job.clip.seconds,
      ...(startImage !== undefined && { start_image: startImage }),
    },
  };
}
