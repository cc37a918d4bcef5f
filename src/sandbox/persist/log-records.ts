/**
 * The lines of a session's log: each is one change, written whole before anything that depends on
 * it is answered, so a session killed at any moment leaves a log that says exactly what its
 * clients may have been told. `owner` opens the log (whose process it is); `closed` ends it.
 */
import * as z from 'zod';
import { fileRecordSchema, jobRecordSchema } from './state-data.js';

export const logRecordSchema = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('owner'), pid: z.number().int(), host: z.string(), started_at: z.number() }),
  /** A request counted against the account's quota. */
  z.strictObject({ t: z.literal('request'), account: z.string(), at: z.number() }),
  /**
   * A create call, all it did at once: the credits charged, its answer under its Idempotency-Key,
   * the files the answer names (already saved), the video job it submitted.
   */
  z.strictObject({
    t: z.literal('create'),
    account: z.string(),
    at: z.number(),
    credits: z.number(),
    key: z.string().optional(),
    answer: z.strictObject({ status: z.number().int(), body: z.unknown() }).optional(),
    files: z.array(fileRecordSchema).optional(),
    job: jobRecordSchema.optional(),
  }),
  /** A video job finished: its charge, and its clip's URL when completed. */
  z.strictObject({
    t: z.literal('settled'),
    id: z.string(),
    at: z.number(),
    status: z.enum(['completed', 'error']),
    credits_used: z.number(),
    video_url: z.string().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ t: z.literal('closed'), at: z.number() }),
]);

export type LogRecord = z.infer<typeof logRecordSchema>;
export type OwnerRecord = Extract<LogRecord, { t: 'owner' }>;
export type CreateRecord = Extract<LogRecord, { t: 'create' }>;
