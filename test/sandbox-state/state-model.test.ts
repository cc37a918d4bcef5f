/**
 * The saved state put together from logs: charges, answers, files and jobs as each line says, a
 * job settled twice counted once, and what ages out dropped as the service would forget it.
 */
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/sandbox/persist/log-records.js';
import { emptyState, type JobRecord } from '../../src/sandbox/persist/state-data.js';
import { EXPIRED_KNOWN_MS, referencedFiles, StateModel } from '../../src/sandbox/persist/state-model.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_800_000_000_000;

const job: JobRecord = {
  id: 'req_job-s1',
  account: 'demo',
  credits: 1500,
  key: 'al-video',
  created_at: T0,
  duration_ms: 3000,
  pending_ms: 900,
  status: 'pending',
  credits_used: 0,
  clip: { prompt: 'orbit', aspect_ratio: '16:9', seconds: 5, start_image: 'sessions/1/inputs/req_job-s1' },
};

const records: LogRecord[] = [
  { t: 'owner', pid: 1, host: 'h', started_at: T0 },
  { t: 'request', account: 'demo', at: T0 },
  {
    t: 'create',
    account: 'demo',
    at: T0,
    credits: 100,
    key: 'al-photo',
    answer: { status: 200, body: { success: true, images: [{ url: 'http://127.0.0.1:1/files/img_a-s1.png' }] } },
    files: [{ id: 'img_a-s1', type: 'image/png', at: T0, source: { file: 'sessions/1/files/img_a-s1.png' } }],
  },
  { t: 'request', account: 'demo', at: T0 + 1 },
  { t: 'create', account: 'demo', at: T0 + 1, credits: 0, key: 'al-video', answer: { status: 200, body: {} }, job },
  { t: 'request', account: 'demo', at: T0 + 4000 },
  {
    t: 'settled',
    id: job.id,
    at: T0 + 4000,
    status: 'completed',
    credits_used: 1500,
    video_url: 'http://127.0.0.1:1/files/vid_job-s1.mp4',
  },
];

function replayed(extra: LogRecord[] = []): StateModel {
  const model = new StateModel(emptyState());
  for (const record of [...records, ...extra]) model.apply(record);
  return model;
}

describe('the saved state', () => {
  it('adds up what the log says: charges by key, answers, files, the job and its clip', () => {
    const data = replayed().toData(T0 + 5000, DAY, [1]);
    expect(data.accounts.demo).toEqual({ spent: 1600, requests: [T0, T0 + 1, T0 + 4000] });
    expect(data.charges).toMatchObject({
      count: 2,
      credits: 1600,
      by_idempotency_key: { 'al-photo': 1, 'al-video': 1 },
      without_idempotency_key: 0,
    });
    expect(data.answers.map((answer) => answer.key).sort()).toEqual(['al-photo', 'al-video']);
    expect(data.jobs[0]).toMatchObject({ status: 'completed', credits_used: 1500 });
    expect(data.files.find((file) => file.type === 'video/mp4')).toEqual({
      id: 'vid_job-s1',
      type: 'video/mp4',
      at: T0 + 4000,
      source: { job: job.id },
    });
    expect(data.absorbed).toEqual([1]);
    expect([...referencedFiles(data)].sort()).toEqual([
      'sessions/1/files/img_a-s1.png',
      'sessions/1/inputs/req_job-s1',
    ]);
  });

  it('counts a job settled by two sessions at once (both resumed one state) once', () => {
    const again: LogRecord = { t: 'settled', id: job.id, at: T0 + 4100, status: 'completed', credits_used: 1500 };
    const data = replayed([again]).toData(T0 + 5000, DAY, []);
    expect(data.charges.count).toBe(2);
    expect(data.accounts.demo?.spent).toBe(1600);
  });

  it('forgets what the service forgets: requests and answers after 24 h, result bytes after retention', () => {
    const data = replayed().toData(T0 + DAY + 2000, DAY, []);
    // The poll 4 s after the rest is still in the window; the two requests before it are not.
    expect(data.accounts.demo).toEqual({ spent: 1600, requests: [T0 + 4000] });
    expect(data.answers).toEqual([]);
    // The charges stay in the totals; the keys, no longer remembered, leave the by-key list.
    expect(data.charges).toMatchObject({ count: 2, credits: 1600, by_idempotency_key: {} });
    // The image is past retention: known (410), without bytes. The clip (made 4 s later) is not yet.
    expect(data.files.find((file) => file.id === 'img_a-s1')).toEqual({ id: 'img_a-s1', type: 'image/png', at: T0 });
    expect(data.files.find((file) => file.id === 'vid_job-s1')?.source).toEqual({ job: job.id });
    expect(data.jobs[0]?.clip.start_image).toBe('sessions/1/inputs/req_job-s1');

    const later = replayed().toData(T0 + DAY + 10_000, DAY, []);
    // The clip expired too: its job is past its 24 h, nothing needs its start image.
    expect(later.jobs).toEqual([]);
    expect(referencedFiles(later).size).toBe(0);

    const muchLater = replayed().toData(T0 + DAY + EXPIRED_KNOWN_MS + 5000, DAY, []);
    expect(muchLater.files).toEqual([]);
  });

  it('keeps a job that has not finished, with its start image, however old', () => {
    const model = new StateModel(emptyState());
    model.apply({
      t: 'create',
      account: 'demo',
      at: T0,
      credits: 0,
      key: 'al-video',
      answer: { status: 200, body: {} },
      job,
    });
    const data = model.toData(T0 + 3 * DAY, DAY, []);
    expect(data.jobs).toEqual([job]);
  });

  it('reads back what it wrote', () => {
    const data = replayed().toData(T0 + 5000, DAY, [1]);
    const again = new StateModel(JSON.parse(JSON.stringify(data)) as typeof data).toData(T0 + 5000, DAY, [1]);
    expect(again).toEqual(data);
  });
});
