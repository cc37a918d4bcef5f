/**
 * What a sandbox that keeps its state writes down, as plain data checked with zod when it is read
 * back: per account the credits spent and the requests of the last 24 hours, the charge counters,
 * the stored idempotent answers, the result files and the video jobs. state.json holds it whole;
 * each session's log (log-records.ts) holds the changes one session made on top of it.
 */
import * as z from 'zod';

const at = z.number().describe('Epoch milliseconds on the sandbox clock (the wall clock).');

export const fileRecordSchema = z.strictObject({
  id: z.string().min(1),
  type: z.enum(['image/png', 'audio/mpeg', 'video/mp4']),
  at,
  /** Where the bytes are: a file under the state folder, or the clip of a video job. Absent once expired. */
  source: z.union([z.strictObject({ file: z.string().min(1) }), z.strictObject({ job: z.string().min(1) })]).optional(),
});

export const jobRecordSchema = z.strictObject({
  id: z.string().min(1),
  account: z.string(),
  credits: z.number(),
  key: z.string().optional(),
  created_at: at,
  duration_ms: z.number(),
  pending_ms: z.number(),
  failure: z.string().optional(),
  status: z.enum(['pending', 'processing', 'completed', 'error']),
  credits_used: z.number(),
  video_url: z.string().optional(),
  message: z.string().optional(),
  clip: z.strictObject({
    prompt: z.string(),
    aspect_ratio: z.string(),
    seconds: z.number(),
    /** The start image, a file under the state folder, while the clip may still be made from it. */
    start_image: z.string().optional(),
  }),
});

export const answerRecordSchema = z.strictObject({
  account: z.string(),
  key: z.string(),
  status: z.number().int(),
  body: z.unknown(),
  at,
});

const counts = z.record(z.string(), z.number());

export const chargeTotalsSchema = z.strictObject({
  count: z.number(),
  credits: z.number(),
  by_account: counts,
  credits_by_account: counts,
  /** Only the keys the sandbox still remembers an answer or a job for (24 hours). */
  by_idempotency_key: counts,
  without_idempotency_key: z.number(),
});

export const stateDataSchema = z.strictObject({
  version: z.literal(1),
  /** The origin of its result URLs, the same run after run (see sandbox.ts). */
  origin: z.string().optional(),
  /** The number the next session takes. */
  next_session: z.number().int().min(1),
  /** Sessions whose logs are in this state already, should their logs still be there. */
  absorbed: z.array(z.number().int()),
  accounts: z.record(z.string(), z.strictObject({ spent: z.number(), requests: z.array(z.number()) })),
  charges: chargeTotalsSchema,
  answers: z.array(answerRecordSchema),
  files: z.array(fileRecordSchema),
  jobs: z.array(jobRecordSchema),
});

export type StateData = z.infer<typeof stateDataSchema>;
export type FileRecord = z.infer<typeof fileRecordSchema>;
export type JobRecord = z.infer<typeof jobRecordSchema>;
export type AnswerRecord = z.infer<typeof answerRecordSchema>;
export type ChargeTotalsData = z.infer<typeof chargeTotalsSchema>;

export function emptyState(): StateData {
  return {
    version: 1,
    next_session: 1,
    absorbed: [],
    accounts: {},
    charges: {
      count: 0,
      credits: 0,
      by_account: {},
      credits_by_account: {},
      by_idempotency_key: {},
      without_idempotency_key: 0,
    },
    answers: [],
    files: [],
    jobs: [],
  };
}
