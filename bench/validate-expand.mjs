// Benchmark: validate and expand 100,000 rows x 5 steps (a CSV export and a five-step chain with
// templates, when:, and a per-row video duration) and render every instance; then the same plus
// the plan (price every instance, totals by step, model and row, the verdict).
// Each measurement runs in a fresh Node process so its peak RSS is its own.
// Targets on the 2-core machine: under 3 s and under 400 MB, for validation alone and for
// validation and plan together. Printed as ratios to the target and to a baseline measured in this
// same run (parsing the CSV alone), because the machine is noisy.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const TARGET_SECONDS = 3;
const TARGET_MB = 400;
const here = path.dirname(fileURLToPath(import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), 'assetline-bench-'));
try {
  writeInputs(dir);
  const baseline = measure('csv-parse only (baseline)', 'parse-csv');
  const validate = measure('validate + expand + iterate', 'validate');
  const plan = measure('validate + plan', 'plan');
  console.log('');
  console.log(
    `rows x steps: ${ROWS.toLocaleString('en-US')} x 5, instances run: ${validate.instances.toLocaleString('en-US')}`,
  );
  for (const [label, measured] of [
    ['validate', validate],
    ['validate + plan', plan],
  ]) {
    console.log(label);
    report('time', measured.seconds, TARGET_SECONDS, 's', baseline.seconds);
    report('peak RSS', measured.rssMB, TARGET_MB, 'MB', baseline.rssMB);
  }
  const ok = [validate, plan].every((m) => m.seconds < TARGET_SECONDS && m.rssMB < TARGET_MB);
  console.log(ok ? 'within targets' : 'OVER TARGET');
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function report(label, value, target, unit, baseline) {
  const fmt = (n) => n.toFixed(unit === 's' ? 2 : 0);
  console.log(
    `  ${label.padEnd(9)} ${fmt(value)} ${unit}  = ${(value / target).toFixed(2)}x of the ${target} ${unit} target, ${(value / baseline).toFixed(1)}x the CSV-parse baseline (${fmt(baseline)} ${unit})`,
  );
}

function measure(label, mode) {
  const worker = path.join(here, 'validate-expand-worker.mjs');
  const result = spawnSync(process.execPath, [worker, mode, path.join(dir, 'pipeline.yaml')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${label} failed:\n${result.stderr}${result.stdout}`);
  const measured = JSON.parse(result.stdout);
  console.log(`${label.padEnd(30)} ${measured.seconds.toFixed(2)} s, peak RSS ${measured.rssMB.toFixed(0)} MB`);
  return measured;
}

function writeInputs(folder) {
  const colors = ['red', 'navy', 'olive', 'white', 'tan', 'grey'];
  const lines = ['sku,name,color,material,video,seconds'];
  for (let i = 0; i < ROWS; i++) {
    const name = `Product ${i} "Trail Runner"`;
    lines.push(
      `SKU-${i},"${name.replaceAll('"', '""')}",${colors[i % colors.length]},recycled mesh,${i % 4 === 0 ? 'no' : 'yes'},${i % 2 === 0 ? 4 : 6}`,
    );
  }
  writeFileSync(path.join(folder, 'products.csv'), `${lines.join('\r\n')}\r\n`);
  writeFileSync(
    path.join(folder, 'pipeline.yaml'),
    `version: 1
name: bench
api: { plan: enterprise, quota: 1000000 }
rows: { file: products.csv }
row_key: sku
steps:
  - id: hero
    generate:
      model: z-image-turbo
      prompt: "Studio photo of the \${{ row.name }} in \${{ row.color }} \${{ row.material }}, white background"
      num_images: 2
  - id: big
    upscale: { image: "\${{ steps.hero.outputs[1] }}", scale: 2 }
  - id: cutout
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: teaser
    when: "\${{ row.video }}"
    video:
      model: gamma3-fast-i2v
      image: "\${{ steps.hero.output }}"
      prompt: "Slow orbit around the \${{ row.name }}"
      duration: "\${{ row.seconds }}"
      aspect_ratio: "9:16"
  - id: voice
    tts: { text: "Meet the \${{ row.name }} in \${{ row.color }}." }
`,
  );
}
