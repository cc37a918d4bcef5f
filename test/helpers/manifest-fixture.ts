/**
 * A small manifest with one of everything a report shows: a done row, a cached step, a failure
 * whose message holds Markdown and HTML characters, a step sent again without an answer, a
 * deferred step and a skipped one. It is checked against the zod schema as it is built.
 */
import { type Manifest, type ManifestStep, manifestSchema } from '../../src/manifest/manifest-schema.js';
import { countSteps, tallyCredits } from '../../src/manifest/manifest-totals.js';

type StepOverrides = Partial<ManifestStep> & Pick<ManifestStep, 'step' | 'status'>;

export function fixtureStep(overrides: StepOverrides): ManifestStep {
  return {
    operation: 'generate',
    model: 'z-image-turbo',
    reason: null,
    request_id: null,
    request_ids: [],
    attempts: overrides.status === 'done' ? 1 : 0,
    ambiguous_attempts: 0,
    polls: 0,
    credits: { planned: 100, used: overrides.status === 'done' ? 100 : 0 },
    started_at: '2026-11-22T02:17:01.000Z',
    finished_at: '2026-11-22T02:17:03.000Z',
    duration_ms: 2000,
    files: [],
    extra_files: [],
    error: null,
    ...overrides,
  };
}

export function png(path: string, width = 512, height = 512): ManifestStep['files'][number] {
  return {
    path,
    bytes: 48_213,
    sha256: 'a'.repeat(64),
    media_type: 'image/png',
    width,
    height,
    url: `https://cdn.example.com/${path}`,
    url_expires_at: '2026-11-23T02:17:03.000Z',
  };
}

export function fixtureManifest(rows: Manifest['rows'] = FIXTURE_ROWS): Manifest {
  const credits = tallyCredits(rows);
  return manifestSchema.parse({
    schema_version: 1,
    pipeline: 'spring-shoes',
    pipeline_file: 'pipelines/spring-shoes.yaml',
    run_id: '2026-11-22T02-17-00-000Z-ab12',
    status: 'partial',
    stopped_by: null,
    exit_code: 1,
    started_at: '2026-11-22T02:17:00.000Z',
    finished_at: '2026-11-22T02:17:42.500Z',
    duration_ms: 42_500,
    sandbox: false,
    base_url: 'https://api.example.com',
    totals: {
      credits: {
        planned: 600,
        used: credits.used,
        estimated: true,
        saved_by_cache: 100,
        by_model: credits.by_model,
        by_step: credits.by_step,
        by_row: credits.by_row,
      },
      requests: {
        sent: 6,
        planned: 5,
        planned_submits: 5,
        planned_polls: 0,
        submits: 5,
        polls: 0,
        other: 0,
        retries: 1,
        ambiguous: 1,
      },
      quota: { plan: 'pro', limit: 1000, used_24h: 106, remaining: 894 },
      steps: countSteps(rows),
    },
    rows,
  });
}

const FIXTURE_ROWS: Manifest['rows'] = [
  {
    key: 'RUN-1',
    folder: 'RUN-1',
    steps: [
      fixtureStep({ step: 'hero', status: 'done', request_id: 'req_1', files: [png('RUN-1/hero.png')] }),
      fixtureStep({
        step: 'big',
        status: 'done',
        operation: 'upscale',
        model: null,
        request_id: 'req_2',
        attempts: 2,
        ambiguous_attempts: 1,
        files: [png('RUN-1/big.png', 1024, 1024)],
      }),
    ],
  },
  {
    key: 'WALK|<2>',
    folder: 'WALK_2_',
    steps: [
      fixtureStep({
        step: 'hero',
        status: 'cached',
        credits: { planned: 0, used: 0 },
        files: [png('WALK_2_/hero.png')],
      }),
      fixtureStep({
        step: 'big',
        status: 'failed',
        operation: 'upscale',
        model: null,
        request_id: 'req_3',
        attempts: 1,
        error: {
          kind: 'permanent',
          status: 400,
          code: 'invalid_scale',
          message: 'scale must be 2 or 4 | got <5>',
          request_id: 'req_3',
        },
      }),
    ],
  },
  {
    key: 'TRAIL-3',
    folder: 'TRAIL-3',
    steps: [
      fixtureStep({
        step: 'hero',
        status: 'deferred',
        reason: 'budget',
        started_at: null,
        finished_at: null,
        duration_ms: null,
      }),
      fixtureStep({
        step: 'big',
        status: 'skipped',
        operation: 'upscale',
        model: null,
        reason: 'upstream-deferred',
        credits: { planned: 0, used: 0 },
        started_at: null,
        finished_at: null,
        duration_ms: null,
      }),
    ],
  },
];
