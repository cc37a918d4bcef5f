// Benchmark of `assetline merge`: 4 shard folders of 2,500 rows each (10,000 rows, 3 small files a
// row: 30,000 files), as `run --shard i/4` leaves them, merged into one folder; then merged again
// into the same folder (every file already in place). Each measurement in its own Node process, so
// its peak RSS is its own. The floor, measured in the same run: hard-linking the same 30,000 files
// in a bare loop (what a merge cannot do with less).
// Targets on the 2-core machine: a first merge under 15 s and under 300 MB (a shard job of 2,500
// rows takes hours; the merge should take seconds and no more memory than a run's report).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { manifestTextOf, rowLine } from '../dist/manifest/manifest-json.js';
import { countSteps, tallyCredits } from '../dist/manifest/manifest-totals.js';
import { writeSheetCsv } from '../dist/report/assets-csv.js';

const SHARDS = 4;
const ROWS = Number(process.env.BENCH_MERGE_ROWS ?? 10_000);
const TARGET_SECONDS = 15;
const TARGET_MB = 300;
const STEPS = [
  ['hero', 'generate', 'z-image-turbo', 'png', 'image/png', 100],
  ['big', 'upscale', null, 'png', 'image/png', 100],
  ['voice', 'tts', 'tts-alpha', 'mp3', 'audio/mpeg', 10],
];
const here = path.dirname(fileURLToPath(import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), 'assetline-bench-merge-'));
try {
  const started = performance.now();
  const dirs = [];
  for (let index = 1; index <= SHARDS; index++) dirs.push(await writeShard(index));
  const files = ROWS * STEPS.length;
  console.log(
    `${SHARDS} shards, ${ROWS.toLocaleString('en-US')} rows, ${files.toLocaleString('en-US')} files, made in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const floor = measure('hard links alone (floor)', 'floor', dirs, path.join(dir, 'floor'));
  const first = measure('merge', 'merge', dirs, path.join(dir, 'merged'));
  const again = measure('merge again (all in place)', 'merge', dirs, path.join(dir, 'merged'));
  if (first.rows !== ROWS || first.files.linked !== files || again.files.unchanged !== files)
    throw new Error(`unexpected merge: ${JSON.stringify({ first, again })}`);
  console.log(
    `merge: ${first.seconds.toFixed(2)} s = ${(first.seconds / TARGET_SECONDS).toFixed(2)}x of the ${TARGET_SECONDS} s target, ${(first.seconds / floor.seconds).toFixed(1)}x the floor; peak RSS ${first.rssMB.toFixed(0)} MB = ${(first.rssMB / TARGET_MB).toFixed(2)}x of the ${TARGET_MB} MB target`,
  );
  const ok = first.seconds < TARGET_SECONDS && first.rssMB < TARGET_MB;
  console.log(ok ? 'within targets' : 'OVER TARGET');
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function measure(label, mode, dirs, out) {
  const worker = path.join(here, 'merge-worker.mjs');
  const result = spawnSync(process.execPath, [worker, mode, out, ...dirs], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${label} failed:\n${result.stderr}${result.stdout}`);
  const measured = JSON.parse(result.stdout);
  console.log(`${label.padEnd(28)} ${measured.seconds.toFixed(2)} s, peak RSS ${measured.rssMB.toFixed(0)} MB`);
  return measured;
}

/** One shard folder, `<dir>/artifact-<i>/bench/shards/<i>-of-4/`, as a run leaves it. */
async function writeShard(index) {
  const artifact = path.join(dir, `artifact-${index}`);
  const shard = path.join(artifact, 'bench', 'shards', `${index}-of-${SHARDS}`);
  const rows = [];
  const each = ROWS / SHARDS;
  for (let i = 0; i < each; i++) {
    const key = `SKU-${String((index - 1) * each + i + 1).padStart(6, '0')}`;
    mkdirSync(path.join(shard, key), { recursive: true });
    rows.push({ key, folder: key, steps: STEPS.map((step) => stepOf(shard, key, step)) });
  }
  const credits = tallyCredits(rows);
  const head = {
    schema_version: 1,
    pipeline: 'bench',
    pipeline_file: 'pipelines/bench.yaml',
    run_id: `2026-11-22T0${index}-00-00-000Z-b${index}`,
    status: 'complete',
    stopped_by: null,
    exit_code: 0,
    started_at: `2026-11-22T0${index}:00:00.000Z`,
    finished_at: `2026-11-22T0${index}:30:00.000Z`,
    duration_ms: 1_800_000,
    sandbox: false,
    base_url: 'https://api.example.com',
    pipeline_version: 'bench-1',
    shard: { index, count: SHARDS },
    totals: {
      credits: { planned: credits.used, estimated: false, saved_by_cache: 0, ...credits },
      requests: {
        sent: rows.length * 3,
        planned: rows.length * 3,
        submits: rows.length * 3,
        polls: 0,
        other: 0,
        retries: 0,
        ambiguous: 0,
      },
      quota: { plan: 'enterprise', limit: null, used_24h: null, remaining: null },
      steps: countSteps(rows),
    },
  };
  const chunks = [];
  for await (const piece of manifestTextOf(
    head,
    { lines: (async function* () {})() },
    rows.map((row) => rowLine(row)),
  ))
    chunks.push(piece);
  writeFileSync(path.join(shard, 'manifest.json'), chunks.join(''));
  await writeSheetCsv(
    path.join(shard, 'manifest.json'),
    shard,
    { columns: ['sku', 'name'], stepIds: STEPS.map(([id]) => id) },
    (key) => [key, `Product ${key}`],
  );
  return artifact;
}

function stepOf(shard, key, [id, operation, model, ext, mediaType, credits]) {
  const content = `${id} of ${key} `.repeat(40 + (key.length % 7));
  const file = `${key}/${id}.${ext}`;
  writeFileSync(path.join(shard, file), content);
  return {
    step: id,
    operation,
    model,
    status: 'done',
    reason: null,
    request_id: `req_${key}_${id}`,
    request_ids: [],
    attempts: 1,
    ambiguous_attempts: 0,
    polls: 0,
    credits: { planned: credits, used: credits, paid_total: credits, lost: 0 },
    started_at: '2026-11-22T01:00:00.000Z',
    finished_at: '2026-11-22T01:00:01.000Z',
    duration_ms: 1000,
    files: [
      {
        path: file,
        bytes: Buffer.byteLength(content),
        sha256: createHash('sha256').update(content).digest('hex'),
        media_type: mediaType,
        url: `https://cdn.example.com/${file}`,
        url_expires_at: null,
      },
    ],
    extra_files: [],
    error: null,
  };
}
