/**
 * The manifest: what a run made, what it cost and what needs attention, per row and step, with
 * totals. Scripts and the report read it; its JSON Schema is generated from this for them.
 */
import * as z from 'zod';

const fileSchema = z.strictObject({
  path: z.string().describe('Relative to the pipeline output folder.'),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  media_type: z.string(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  duration_seconds: z.number().nonnegative().optional(),
  url: z.string().describe('Where the service served it (expires).'),
  url_expires_at: z.string().nullable().describe('When the URL stops answering, as far as known.'),
  run_id: z
    .string()
    .optional()
    .describe(
      'The run that saved the file from the service (a copy reused from the cache keeps it); absent for files saved by versions that did not record it.',
    ),
});

const creditsPair = z.strictObject({ planned: z.number().nonnegative(), used: z.number().nonnegative() });

const stepCredits = z.strictObject({
  planned: z.number().nonnegative(),
  used: z.number().nonnegative().describe('Charged by the service in this run for this step, whatever became of it.'),
  paid_total: z
    .number()
    .nonnegative()
    .optional()
    .describe('Every credit charged for this step across all runs, as far as the client knows (absent before 0.2).'),
  lost: z.number().nonnegative().optional().describe('Of paid_total: paid for results that were never saved.'),
});

const lossSchema = z.strictObject({
  credits: z.number().nonnegative(),
  reason: z.string(),
  request_id: z.string().nullable(),
  at: z.string(),
});

export const STEP_STATUSES = ['done', 'cached', 'failed', 'skipped', 'deferred'] as const;

const stepSchema = z.strictObject({
  step: z.string(),
  operation: z.string(),
  model: z.string().nullable(),
  status: z.enum(STEP_STATUSES),
  reason: z
    .string()
    .nullable()
    .describe(
      'Why skipped or deferred; `not-selected` for the steps of a row --rows did not choose (cached: an earlier result, skipped: none).',
    ),
  request_id: z.string().nullable(),
  request_ids: z.array(z.string()).describe('Every video submission, oldest first.'),
  attempts: z.number().int().nonnegative(),
  ambiguous_attempts: z
    .number()
    .int()
    .nonnegative()
    .describe('Sent without an answer: may have been charged twice where the service ignores Idempotency-Key.'),
  polls: z.number().int().nonnegative(),
  credits: stepCredits,
  losses: z.array(lossSchema).optional().describe('Results paid for and never saved, with why.'),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nonnegative().nullable(),
  files: z.array(fileSchema),
  extra_files: z.array(fileSchema).describe('Results of abandoned video jobs that were paid for anyway.'),
  replaced_files: z
    .array(fileSchema)
    .optional()
    .describe(
      'Redone in this run (--redo): the earlier result, kept at runs/<run_id>/<its path> (run_id: the run that saved it).',
    ),
  error: z
    .strictObject({
      kind: z.string(),
      status: z.number().int().nullable(),
      code: z.string(),
      message: z.string(),
      request_id: z.string().nullable(),
    })
    .nullable(),
});

const countsSchema = z.strictObject({
  done: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  deferred: z.number().int().nonnegative(),
  cached: z.number().int().nonnegative(),
});

export const RUN_STATUSES = ['running', 'complete', 'partial', 'stopped', 'interrupted'] as const;

/** A shard as the merged manifest names it: `2-of-4` (its folder under shards/). */
const shardLabel = z.string().regex(/^[1-9]\d*-of-[1-9]\d*$/);

const mergedFromSchema = z.strictObject({
  shard: shardLabel,
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  exit_code: z.number().int().nullable(),
  rows: z.number().int().nonnegative(),
  dir: z.string().describe("The shard folder merged, relative to this manifest's folder."),
});

/** One row of a manifest; checked on its own where a merge reads shards' rows one at a time. */
export const manifestRowSchema = z.strictObject({
  key: z.string(),
  folder: z.string(),
  shard: shardLabel.optional().describe('In a merged manifest: the shard that made the row.'),
  steps: z.array(stepSchema),
});

export const manifestSchema = z.strictObject({
  schema_version: z.literal(1),
  pipeline: z.string(),
  pipeline_file: z.string(),
  pipeline_version: z
    .string()
    .optional()
    .describe(
      "What identifies the pipeline's definition: the first 16 hex digits of the SHA-256 of the pipeline file's text and its rows file's. The shards of one pipeline agree on it. Absent in manifests written before it was recorded.",
    ),
  shard: z
    .strictObject({
      index: z.number().int().positive().describe('This shard, from 1.'),
      count: z.number().int().positive().describe('Of how many.'),
    })
    .optional()
    .describe(
      "A run of one shard (`run --shard index/count`): its rows are the shard's only. Absent for a run of every row.",
    ),
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  stopped_by: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nonnegative().nullable(),
  sandbox: z.boolean(),
  base_url: z.string(),
  merged_at: z
    .string()
    .optional()
    .describe('`assetline merge`: when it merged; the one field two merges of the same shards differ in.'),
  merged_from: z
    .array(mergedFromSchema)
    .optional()
    .describe('`assetline merge`: the shard runs combined here, by shard.'),
  missing_shards: z
    .array(shardLabel)
    .optional()
    .describe('`assetline merge --allow-missing`: the shards that were not there (their rows are not listed).'),
  totals: z.strictObject({
    credits: z.strictObject({
      planned: z.number().nonnegative(),
      used: z.number().nonnegative(),
      estimated: z.boolean(),
      saved_by_cache: z.number().nonnegative(),
      paid_total: z
        .number()
        .nonnegative()
        .optional()
        .describe('Every credit charged for these steps across all runs, as far as the client knows.'),
      lost: z.number().nonnegative().optional().describe('Of paid_total: paid for results that were never saved.'),
      by_model: z.record(z.string(), creditsPair),
      by_step: z.record(z.string(), creditsPair),
      by_row: z.record(z.string(), creditsPair),
    }),
    requests: z.strictObject({
      sent: z.number().int().nonnegative(),
      planned: z.number().int().nonnegative().describe('Submits planned plus the video polls expected.'),
      planned_submits: z.number().int().nonnegative().optional(),
      planned_polls: z.number().int().nonnegative().optional().describe('Expected, not worst case.'),
      submits: z.number().int().nonnegative(),
      polls: z.number().int().nonnegative(),
      other: z.number().int().nonnegative(),
      retries: z.number().int().nonnegative(),
      ambiguous: z.number().int().nonnegative(),
    }),
    quota: z.strictObject({
      plan: z.string(),
      limit: z.number().int().nullable(),
      used_24h: z.number().int().nullable(),
      remaining: z.number().int().nullable(),
      refused_at: z
        .string()
        .nullable()
        .optional()
        .describe('When the service refused a request for the quota (429): then remaining is 0.'),
    }),
    steps: countsSchema,
  }),
  rows: z.array(manifestRowSchema),
});

export type Manifest = z.infer<typeof manifestSchema>;
/** Everything in a manifest but its rows: what is known once the rows are tallied. */
export type ManifestHead = Omit<Manifest, 'rows'>;
export type ManifestStep = z.infer<typeof stepSchema>;
export type ManifestRowEntry = z.infer<typeof manifestRowSchema>;
export type MergedFrom = z.infer<typeof mergedFromSchema>;
export type StepCounts = z.infer<typeof countsSchema>;
