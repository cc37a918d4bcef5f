/**
 * A pipeline after validation: every setting resolved to its value (defaults from the catalogue
 * applied here, once), every step compiled. This is what planning and running read; nothing
 * downstream looks at the raw YAML again.
 */

import {
  PLAN_DAILY_REQUESTS,
  type PlanName,
  VIDEO_POLL_INTERVAL_SECONDS,
  VIDEO_POLL_TIMEOUT_SECONDS,
} from '../catalog/limits.js';
import type { ApiSettings } from '../api/api-settings.js';
import { OPEN_ITEMS } from '../catalog/open-items.js';
import type { Operation } from '../catalog/operations.js';
import type { PipelineInput } from './schema/pipeline-schema.js';
import { durationToMs } from './schema/value-schemas.js';
import type { ParsedTemplate } from './template/template-syntax.js';
import type { FilePosition } from './problem.js';
import type { DataPath } from './yaml/yaml-locator.js';

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_RETRIES = 3;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_BACKOFF = { baseSeconds: 1, capSeconds: 30 } as const;

/** A field of a step: as written (static), rendered per row (template), or an earlier step's output. */
export type FieldValue =
  | { readonly kind: 'static'; readonly value: string | number | boolean }
  | { readonly kind: 'template'; readonly template: ParsedTemplate }
  | { readonly kind: 'output'; readonly step: string; readonly index: number };

export interface StepField {
  readonly value: FieldValue;
  /** Where it is written: in the step, or in `defaults:`. */
  readonly path: DataPath;
}

export interface CheckedStep {
  readonly id: string;
  /** Position in the pipeline's `steps:` list. */
  readonly index: number;
  readonly operation: Operation;
  readonly path: DataPath;
  readonly fields: ReadonlyMap<string, StepField>;
  readonly when: StepField | undefined;
  readonly retries: number;
  readonly timeoutMs: number;
  /** Where the step starts in the pipeline file: failures are annotated there in CI. */
  readonly position: FilePosition;
  /** Ids of the earlier steps whose outputs this one uses, in the same row. */
  readonly dependsOn: readonly string[];
}

/** The `api:` block resolved: what the client needs (ApiSettings), and what planning needs too. */
export interface ResolvedApi extends ApiSettings {
  readonly plan: PlanName;
  /** Requests per rolling 24 hours: the explicit `quota:`, else the plan's; null only if neither is known. */
  readonly dailyQuota: number | null;
  /** `quota_per_shard:`: each shard's requests per 24 hours with `--shard`; undefined: 1/n of the key's. */
  readonly quotaPerShard: number | undefined;
  readonly baseUrl: string | undefined;
  readonly video: ApiSettings['video'] & { readonly expectedSeconds: number };
}

export interface DimensionLimit {
  readonly min?: number;
  readonly max?: number;
  readonly multipleOf?: number;
}

export interface ResolvedLimits {
  readonly maxNumImages: number | undefined;
  readonly dimensions: DimensionLimit | undefined;
  readonly dimensionsByModel: ReadonlyMap<string, DimensionLimit>;
  readonly videoImageMaxBytes: number;
}

export type PriceEntry = number | Readonly<Record<string, number>>;

export interface CheckedPipeline {
  /** The pipeline file as shown in messages. */
  readonly file: string;
  /** Its folder: relative paths (rows files, local images, outputs.dir) start here. */
  readonly dir: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly api: ResolvedApi;
  readonly maxCredits: number | undefined;
  readonly concurrency: { readonly total: number; readonly perOperation: Readonly<Partial<Record<Operation, number>>> };
  readonly rowKey: string | undefined;
  readonly pricing: Readonly<Record<string, PriceEntry>>;
  readonly limits: ResolvedLimits;
  readonly outputsDir: string | undefined;
  readonly steps: readonly CheckedStep[];
  /**
   * What identifies the pipeline's definition: a hash of the pipeline file's text and its rows
   * file's (pipeline-version.ts). The manifest's `pipeline_version`.
   */
  readonly version: string;
}

export type PipelineSettings = Omit<CheckedPipeline, 'steps' | 'version'>;

export function resolveSettings(input: PipelineInput, file: string, dir: string): PipelineSettings {
  const api = input.api ?? {};
  const video = api.video ?? {};
  const pollInterval = video.poll_interval_seconds ?? VIDEO_POLL_INTERVAL_SECONDS;
  const concurrency = input.concurrency ?? DEFAULT_CONCURRENCY;
  const limits = input.limits ?? {};
  return {
    file,
    dir,
    name: input.name,
    description: input.description,
    api: {
      plan: api.plan ?? 'free',
      dailyQuota: api.quota ?? PLAN_DAILY_REQUESTS[api.plan ?? 'free'],
      quotaPerShard: api.quota_per_shard,
      baseUrl: api.base_url,
      video: {
        statusMethod: video.status?.method ?? OPEN_ITEMS.videoStatusEndpoint.client.method,
        statusPath: video.status?.path ?? OPEN_ITEMS.videoStatusEndpoint.client.path,
        fieldNames: video.fields ?? OPEN_ITEMS.videoFieldNames.client,
        pollIntervalSeconds: pollInterval,
        pollIntervalMaxSeconds: video.poll_interval_max_seconds ?? pollInterval,
        expectedSeconds: video.expected_seconds ?? OPEN_ITEMS.videoExpectedSeconds.client,
        timeoutSeconds: video.timeout_seconds ?? VIDEO_POLL_TIMEOUT_SECONDS,
        onTimeout: video.on_timeout ?? 'resubmit',
      },
      retry: {
        baseSeconds: api.retry?.base_seconds ?? DEFAULT_BACKOFF.baseSeconds,
        capSeconds: api.retry?.cap_seconds ?? DEFAULT_BACKOFF.capSeconds,
      },
      responsePaths: Object.fromEntries(
        Object.entries(api.response_paths ?? {}).filter(([, path]) => path !== undefined),
      ) as Record<string, string>,
    },
    maxCredits: input.budget?.max_credits,
    concurrency:
      typeof concurrency === 'number'
        ? { total: concurrency, perOperation: {} }
        : { total: concurrency.total, perOperation: perOperationLimits(concurrency) },
    rowKey: input.row_key,
    pricing: input.pricing ?? {},
    limits: {
      maxNumImages: limits.max_num_images,
      dimensions: limits.dimensions ? dimensionLimit(limits.dimensions) : undefined,
      dimensionsByModel: new Map(
        Object.entries(limits.dimensions_by_model ?? {}).map(([model, limit]) => [model, dimensionLimit(limit)]),
      ),
      videoImageMaxBytes: limits.video_image_max_bytes ?? OPEN_ITEMS.videoImageMaxBytes.client,
    },
    outputsDir: input.outputs?.dir,
  };
}

export function stepRetries(input: PipelineInput, stepRetriesValue: number | undefined): number {
  return stepRetriesValue ?? input.defaults?.retries ?? DEFAULT_RETRIES;
}

export function stepTimeoutMs(input: PipelineInput, stepTimeout: number | string | undefined): number {
  const value = stepTimeout ?? input.defaults?.timeout;
  return value === undefined ? DEFAULT_TIMEOUT_MS : durationToMs(value);
}

function perOperationLimits(
  concurrency: Readonly<Record<string, number | undefined>>,
): Partial<Record<Operation, number>> {
  const out: Partial<Record<Operation, number>> = {};
  for (const [key, value] of Object.entries(concurrency)) {
    if (key !== 'total' && value !== undefined) out[key as Operation] = value;
  }
  return out;
}

function dimensionLimit(limit: {
  min?: number | undefined;
  max?: number | undefined;
  multiple_of?: number | undefined;
}): DimensionLimit {
  return {
    ...(limit.min !== undefined && { min: limit.min }),
    ...(limit.max !== undefined && { max: limit.max }),
    ...(limit.multiple_of !== undefined && { multipleOf: limit.multiple_of }),
  };
}
