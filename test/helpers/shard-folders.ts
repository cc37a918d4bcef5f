/**
 * Shard folders as `run --shard i/n` leaves them (the contract: `<out>/<pipeline>/shards/<i>-of-<n>/`
 * with manifest.json, the row folders and assets.csv), made without a service: small files with
 * their real sha256, a manifest checked against the zod schema and written as the runner writes it,
 * and assets.csv written by the run's own code.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Manifest, type ManifestStep, manifestSchema } from '../../src/manifest/manifest-schema.js';
import { countSteps, tallyCredits } from '../../src/manifest/manifest-totals.js';
import { writeSheetCsv } from '../../src/report/assets-csv.js';
import { writeManifestFile } from './manifest-file.js';
import { fixtureStep } from './manifest-fixture.js';

export const PIPELINE_NAME = 'shoes';
export const VERSION = 'v1-3f9a2c';
export const STEP_IDS = ['hero', 'voice'] as const;

export interface ShardSpec {
  readonly index: number;
  readonly count: number;
  /** The row keys this shard made, in its order. */
  readonly rows: readonly string[];
  readonly status?: Manifest['status'];
  readonly runId?: string;
  readonly version?: string | undefined;
  readonly pipeline?: string;
  /** A row's content: change it to make a row whose result differs. */
  readonly content?: (key: string, step: string) => string;
  /** Rewrite the manifest before it is written (a tampered one). */
  readonly edit?: (manifest: Manifest) => Manifest;
  /** Leave the sharding fields out: an unsharded run. */
  readonly unsharded?: boolean;
}

export const defaultContent = (key: string, step: string) => `${step} of ${key}\n`.repeat(50);

/** Writes the shard under `<root>/<pipeline>/shards/<i>-of-<n>/` and returns that folder. */
export async function writeShardFolder(root: string, spec: ShardSpec): Promise<string> {
  const pipeline = spec.pipeline ?? PIPELINE_NAME;
  const dir = spec.unsharded
    ? path.join(root, pipeline)
    : path.join(root, pipeline, 'shards', `${spec.index}-of-${spec.count}`);
  const content = spec.content ?? defaultContent;
  const rows: Manifest['rows'] = spec.rows.map((key) => {
    mkdirSync(path.join(dir, key), { recursive: true });
    const file = (step: string, ext: string, mediaType: string): ManifestStep['files'][number] => {
      const text = content(key, step);
      writeFileSync(path.join(dir, key, `${step}.${ext}`), text);
      return {
        path: `${key}/${step}.${ext}`,
        bytes: Buffer.byteLength(text),
        sha256: createHash('sha256').update(text).digest('hex'),
        media_type: mediaType,
        url: `https://cdn.example.com/${key}/${step}`,
        url_expires_at: null,
      };
    };
    return {
      key,
      folder: key,
      steps: [
        fixtureStep({
          step: 'hero',
          status: 'done',
          request_id: `req_${key}_hero`,
          credits: { planned: 100, used: 100, paid_total: 100, lost: 0 },
          files: [file('hero', 'png', 'image/png')],
        }),
        fixtureStep({
          step: 'voice',
          status: 'done',
          operation: 'tts',
          model: 'tts-alpha',
          request_id: `req_${key}_voice`,
          credits: { planned: 10, used: 10, paid_total: 10, lost: 0 },
          files: [file('voice', 'mp3', 'audio/mpeg')],
        }),
      ],
    };
  });
  const credits = tallyCredits(rows);
  const status = spec.status ?? 'complete';
  const exitCode = { complete: 0, partial: 1, stopped: 4, interrupted: 130, running: null }[status];
  let manifest: Manifest = manifestSchema.parse({
    schema_version: 1,
    pipeline,
    pipeline_file: `pipelines/${pipeline}.yaml`,
    run_id: spec.runId ?? `2026-11-22T0${spec.index}-00-00-000Z-s${spec.index}`,
    status,
    stopped_by: status === 'stopped' ? 'credits' : null,
    exit_code: exitCode,
    started_at: `2026-11-22T0${spec.index}:00:00.000Z`,
    finished_at: status === 'running' ? null : `2026-11-22T0${spec.index}:10:00.000Z`,
    duration_ms: status === 'running' ? null : 600_000,
    sandbox: false,
    base_url: 'https://api.example.com',
    ...(!spec.unsharded && {
      pipeline_version: 'version' in spec ? spec.version : VERSION,
      shard: { index: spec.index, count: spec.count },
    }),
    totals: {
      credits: {
        planned: 110 * rows.length + 5,
        used: credits.used,
        estimated: false,
        saved_by_cache: 7,
        paid_total: credits.paid_total,
        lost: credits.lost,
        by_model: credits.by_model,
        by_step: credits.by_step,
        by_row: credits.by_row,
      },
      requests: {
        sent: 2 * rows.length + 1,
        planned: 2 * rows.length,
        planned_submits: 2 * rows.length,
        planned_polls: 0,
        submits: 2 * rows.length,
        polls: 0,
        other: 1,
        retries: spec.index,
        ambiguous: 0,
      },
      quota: { plan: 'pro', limit: 1000, used_24h: 100 * spec.index, remaining: 1000 - 100 * spec.index },
      steps: countSteps(rows),
    },
    rows,
  });
  if (spec.edit) manifest = spec.edit(manifest);
  await writeManifestFile(path.join(dir, 'manifest.json'), manifest);
  await writeSheetCsv(
    path.join(dir, 'manifest.json'),
    dir,
    { columns: ['name', 'size'], stepIds: [...STEP_IDS] },
    (key) => [`Shoe ${key}`, String(key.length)],
  );
  return dir;
}

/** The shards of one run, each in its own artifact folder `<root>/artifact-<i>/`, as a CI matrix leaves them. */
export async function writeShards(root: string, count: number, rowsEach: number): Promise<string[]> {
  const dirs: string[] = [];
  for (let index = 1; index <= count; index++) {
    const rows = Array.from({ length: rowsEach }, (_, i) => `SKU-${index}-${i + 1}`);
    await writeShardFolder(path.join(root, `artifact-${index}`), { index, count, rows });
    dirs.push(path.join(root, `artifact-${index}`));
  }
  return dirs;
}
