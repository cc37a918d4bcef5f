// Benchmark: `plan` of a 100,000-row pipeline against an output folder where every row is done
// (the journal replayed, every instance's fingerprint looked up, every cached file checked),
// against the same plan with an empty output folder, measured in this same run.
// Target: within 2x. Each measurement runs in a fresh Node process; the better of three is kept for
// each side, since the machine is noisy.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const TARGET_RATIO = 2;
const TRIES = 3;
const here = path.dirname(fileURLToPath(import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), 'assetline-bench-'));
try {
  const pipeline = writeInputs(dir);
  const made = worker('make', pipeline, path.join(dir, 'done'));
  console.log(`made a done folder: ${made.instances.toLocaleString('en-US')} results in ${made.seconds.toFixed(1)} s`);
  const empty = [];
  const done = [];
  for (let i = 0; i < TRIES; i++) {
    empty.push(worker('plan', pipeline, path.join(dir, 'empty')));
    done.push(worker('plan', pipeline, path.join(dir, 'done')));
  }
  const best = (runs) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const [base, full] = [best(empty), best(done)];
  if (full.cached !== full.instances || base.cached !== 0)
    throw new Error(`cache probe wrong: ${JSON.stringify({ base, full })}`);
  const show = (label, runs) =>
    console.log(
      `${label.padEnd(26)} ${runs.map((run) => `${run.seconds.toFixed(2)} s`).join(', ')}; peak RSS ${best(runs).rssMB.toFixed(0)} MB`,
    );
  console.log(`rows: ${ROWS.toLocaleString('en-US')}, step instances: ${full.instances.toLocaleString('en-US')}`);
  show('plan, empty output folder', empty);
  show('plan, every row done', done);
  const ratio = full.seconds / base.seconds;
  console.log(`ratio (best of ${TRIES} each): ${ratio.toFixed(2)}x; target within ${TARGET_RATIO}x`);
  process.exitCode = ratio <= TARGET_RATIO ? 0 : 1;
  console.log(ratio <= TARGET_RATIO ? 'within target' : 'OVER TARGET');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function worker(mode, pipeline, out) {
  const result = spawnSync(process.execPath, [path.join(here, 'plan-cached-worker.mjs'), mode, pipeline, out], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`${mode} failed:\n${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

function writeInputs(folder) {
  const lines = ['sku,name'];
  for (let i = 0; i < ROWS; i++) lines.push(`SKU-${i},Trail Runner ${i}`);
  writeFileSync(path.join(folder, 'products.csv'), `${lines.join('\n')}\n`);
  const file = path.join(folder, 'pipeline.yaml');
  writeFileSync(
    file,
    `version: 1
name: nightly
api: { plan: enterprise, quota: 1000000 }
rows: { file: products.csv }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "Studio photo of the \${{ row.name }}" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}." }
`,
  );
  return file;
}
