/**
 * The schema of a whole pipeline file (the contract's shape). Checks structure and types; what
 * a schema cannot say (models per operation, durations per model, template references...) is left
 * to the named rules that run after it.
 */
import * as z from 'zod';
import { PLANS } from '../../catalog/limits.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import { OPERATIONS } from '../../catalog/operations.js';
import { operationKeys, retriesSchema, stepSchema } from './step-schema.js';
import { ROWS_ENCODINGS } from '../encoding/decode-rows-file.js';
import { describeInput, durationSchema, rowValueSchema } from './value-schemas.js';

export const PIPELINE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const positiveInt = z.number().int().min(1);
const count = z.number().int().min(0);

const videoApiSchema = z
  .strictObject({
    status: z
      .strictObject({
        method: z.enum(['POST', 'GET']).default(OPEN_ITEMS.videoStatusEndpoint.client.method),
        path: z
          .string()
          .startsWith('/')
          .default(OPEN_ITEMS.videoStatusEndpoint.client.path)
          .describe('Path of the status endpoint; {request_id} is replaced (GET) or sent in the body (POST).'),
      })
      .optional()
      .describe('Where the status of a video job is read. The reference does not say.'),
    fields: z
      .strictObject({
        aspect_ratio: z.string().min(1).default(OPEN_ITEMS.videoFieldNames.client.aspect_ratio),
        duration: z.string().min(1).default(OPEN_ITEMS.videoFieldNames.client.duration),
      })
      .optional()
      .describe('Request field names for the aspect ratio and the duration. The reference does not say.'),
    poll_interval_seconds: z.number().positive().optional().describe('Seconds between status polls. Default 5.'),
    poll_interval_max_seconds: z
      .number()
      .positive()
      .optional()
      .describe('Let the poll interval grow up to this many seconds (default: it does not grow).'),
    expected_seconds: z
      .number()
      .positive()
      .optional()
      .describe('How long a video job usually takes; plans estimate polls from it. Default 120.'),
    timeout_seconds: z
      .number()
      .positive()
      .optional()
      .describe('After this long a job is treated as failed (the reference: 5 minutes). Default 300.'),
    on_timeout: z
      .enum(['resubmit', 'keep-polling', 'fail'])
      .optional()
      .describe('What to do with a job past its timeout. Default resubmit, as the reference says.'),
  })
  .describe('How video jobs are polled.');

const apiSchema = z
  .strictObject({
    plan: z.enum(PLANS).optional().describe("The API key's plan; sets the daily request quota. Default free."),
    quota: positiveInt
      .optional()
      .describe('Requests per rolling 24 hours; required for enterprise, overrides the plan otherwise.'),
    quota_per_shard: positiveInt
      .optional()
      .describe(
        "Requests per rolling 24 hours each shard of `run --shard i/n` may send, instead of 1/n of the key's quota left: e.g. the whole daily quota when every shard has a key of its own.",
      ),
    base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("The service's base URL (ASSETLINE_BASE_URL wins)."),
    video: videoApiSchema.optional(),
    response_paths: z
      .strictObject({
        request_id: z.string().min(1).optional(),
        credits_used: z.string().min(1).optional(),
        images: z.string().min(1).optional(),
        image_url: z.string().min(1).optional(),
        audio_url: z.string().min(1).optional(),
        duration_seconds: z.string().min(1).optional(),
        video_url: z.string().min(1).optional(),
        status: z.string().min(1).optional(),
        error_code: z.string().min(1).optional(),
        error_message: z.string().min(1).optional(),
      })
      .optional()
      .describe(
        'Where to find a field in the answers when the service puts it somewhere else, e.g. video_url: "data.video.href" or "images[0].url"; tried before the documented places.',
      ),
    retry: z
      .strictObject({
        base_seconds: z.number().positive().optional().describe('First backoff delay. Default 1.'),
        cap_seconds: z.number().positive().optional().describe('Longest backoff delay. Default 30.'),
      })
      .optional()
      .describe('Backoff between retries of transient failures (full jitter).'),
  })
  .describe("The service and the key's plan.");

const concurrencySchema = z
  .union(
    [
      positiveInt.max(256),
      z.strictObject({
        total: positiveInt.max(256),
        ...Object.fromEntries(OPERATIONS.map((operation) => [operation, positiveInt.max(256).optional()])),
      }),
    ],
    {
      error: (issue) =>
        `expected a number of parallel requests (1 to 256) or { total: N, video: M, ... }, got ${describeInput(issue.input)}`,
    },
  )
  .describe('Requests in flight at once: a number, or { total: N } with optional limits per operation.');

const rowsFileSchema = z
  .strictObject({
    file: z.string().min(1).describe('A .csv, .json, .yaml or .yml file, relative to the pipeline file.'),
    format: z.enum(['csv', 'json', 'yaml']).optional().describe('Defaults to the file extension.'),
    encoding: z
      .enum(ROWS_ENCODINGS)
      .optional()
      .describe(
        'The text encoding of the file: utf-8 (the default), windows-1252 or latin1 (Excel on Windows), or utf-16 with a byte-order mark.',
      ),
  })
  .describe('Rows read from a file next to the pipeline.');

const rowSchema = z.record(z.string(), rowValueSchema).describe('One row: column name to value.');

const rowsSchema = z
  .union([z.array(rowSchema), rowsFileSchema], {
    error: (issue) => `expected a list of rows or { file: rows.csv }, got ${describeInput(issue.input)}`,
  })
  .describe('The rows every step runs for: inline, or { file: ... }. Without rows, the steps run once.');

const priceTableSchema = z.record(z.string(), count);

const pricingSchema = z
  .record(
    z.string(),
    z.union([count, priceTableSchema], {
      error: (issue) =>
        `expected credits (an integer) or a table of "<resolution>-<quality>": credits, got ${describeInput(issue.input)}`,
    }),
  )
  .describe(
    'Credits per unit for models or operations the reference does not price (iota-2, iota-2-edit, remove-bg), or to override a price. A model priced by resolution and quality takes a table keyed "<resolution>-<quality>", e.g. "2k-high", with "default" for a part the step leaves unset.',
  );

const dimensionLimitSchema = z
  .strictObject({
    min: positiveInt.optional(),
    max: positiveInt.optional(),
    multiple_of: positiveInt.optional(),
  })
  .refine((limit) => limit.min === undefined || limit.max === undefined || limit.min <= limit.max, {
    error: 'min is above max: no size would pass',
    path: ['min'],
  });

const limitsSchema = z
  .strictObject({
    max_num_images: positiveInt
      .optional()
      .describe('Upper bound of num_images (not published; not checked unless set).'),
    dimensions: dimensionLimitSchema.optional().describe('Accepted width and height for every generate model.'),
    dimensions_by_model: z
      .record(z.string(), dimensionLimitSchema)
      .optional()
      .describe('Accepted width and height per model ID; wins over dimensions.'),
    video_image_max_bytes: positiveInt.optional().describe('Largest start image for video. Default 10,000,000.'),
  })
  .describe('Checks for limits the reference does not publish; each applies only when set.');

const defaultsSchema = z
  .strictObject({
    retries: retriesSchema.optional(),
    timeout: durationSchema.optional().describe('Time limit of one request attempt. Default 120s.'),
    ...operationKeys(),
  })
  .describe('Defaults for every step: retries, timeout, and parameters per operation.');

const outputsSchema = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      .optional()
      .describe('Output folder, relative to the pipeline file (run --out wins). Default out/.'),
  })
  .describe('Where results are written.');

export const pipelineSchema = z
  .strictObject({
    version: z.literal(1).describe('Pipeline format version; always 1.'),
    name: z
      .string()
      .regex(PIPELINE_NAME_PATTERN, {
        error: (issue) =>
          `expected a name of letters, digits, ".", "_" or "-" (it names the output folder), got ${describeInput(issue.input)}`,
      })
      .describe('Names the output folder out/<name>/.'),
    description: z.string().optional(),
    api: apiSchema.optional(),
    budget: z
      .strictObject({ max_credits: count.describe('Refuse to start when the plan costs more credits than this.') })
      .optional(),
    concurrency: concurrencySchema.optional(),
    rows: rowsSchema.optional(),
    row_key: z
      .string()
      .min(1)
      .optional()
      .describe("Column whose value names each row's output folder; default: the row number."),
    priority: z
      .string()
      .optional()
      .describe(
        'A row value, e.g. "${{ row.priority }}": rows with a higher number start first (an empty cell is 0), so they run tonight when --fit defers the rest.',
      ),
    defaults: defaultsSchema.optional(),
    pricing: pricingSchema.optional(),
    limits: limitsSchema.optional(),
    outputs: outputsSchema.optional(),
    steps: z.array(stepSchema).min(1, { error: 'expected at least one step' }),
  })
  .describe('An assetline pipeline: rows x steps, sent to the Creative Media Generation API.');

export type PipelineInput = z.output<typeof pipelineSchema>;
export type ApiInput = z.output<typeof apiSchema>;
export type LimitsInput = z.output<typeof limitsSchema>;
export type RowsInput = z.output<typeof rowsSchema>;
