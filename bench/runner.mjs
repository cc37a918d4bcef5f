// Benchmark of the runner against a sandbox in its own process (fixed 40 ms latency, placeholder
// media so the sandbox never limits it):
//   1. 5,000 one-step rows at concurrency 32. Targets: makespan within 1.10x of the ideal
//      ceil(N/C) x L, runner CPU under 0.5 ms per step, peak RSS under 200 MB. Beside it, the
//      floor: the same requests and downloads written where the contract puts them, with nothing
//      else (no journal, no checks), over the runner's engine (the platform fetch over an undici
//      Agent); the runner's own CPU is its CPU less the floor's. A second floor over undici's
//      request() shows what the engine itself costs (fetch: about 0.7 ms more per step, an API
//      call and a download, on Node 20, 22 and 24 alike).
//   2. A 3-step chain (generate, upscale, remove-bg) with random 20-200 ms latency: the runner
//      (no stage barriers) against a stage-by-stage baseline (Promise.all per stage) in this run.
// Each measurement runs in a fresh process; each phase is bounded and stops by itself.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const KEY = 'sk-bench-runner-000000000000';
const ROWS = Number(process.env.BENCH_RUNNER_ROWS ?? 5000);
const CHAIN_ROWS = Number(process.env.BENCH_CHAIN_ROWS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const C = 32;
const L = 40;
const dir = mkdtempSync(path.join(tmpdir(), 'assetline-runner-bench-'));
let measurements = 0;
const sandboxes = new Set();

let ok = true;
try {
  {
    const sandbox = await startSandbox({ latency_ms: L });
    const pipeline = writePipeline('one-step', ROWS, ['generate']);
    // Interleaved rounds: the disk and the neighbours of a small VM vary from second to second.
    // Each round's runner is compared with the floor measured right after it, and the medians of
    // those paired differences are reported, so one slow moment does not decide the outcome.
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({
        runner: worker('runner', pipeline, sandbox.baseUrl),
        bare: worker('bare-fetch', pipeline, sandbox.baseUrl),
        request: worker('bare', pipeline, sandbox.baseUrl),
      });
    }
    sandbox.stop();
    const measured = median(rounds.map((r) => r.runner));
    const bare = median(rounds.map((r) => r.bare));
    const requestFloor = median(rounds.map((r) => r.request));
    const paired = (f) => middle(rounds.map(f));
    const ideal = Math.ceil(ROWS / C) * L;
    const ratio = measured.ms / ideal;
    const ownCpuPerStep = paired((r) => (r.runner.cpuMs - r.bare.cpuMs) / ROWS);
    const ownUserPerStep = paired((r) => (r.runner.userMs - r.bare.userMs) / ROWS);
    console.log(
      `1. ${ROWS.toLocaleString('en-US')} one-step rows, concurrency ${C}, ${L} ms latency (${measured.steps} steps, exit ${measured.exit}; ${ROUNDS} interleaved rounds, medians)`,
    );
    console.log(
      `   makespan   ${(measured.ms / 1000).toFixed(2)} s = ${ratio.toFixed(3)}x the ideal ceil(N/C) x L = ${(ideal / 1000).toFixed(2)} s (target <= 1.10x)`,
    );
    console.log(
      `              the floor (bare requests and downloads over the same engine, fetch, ${bare.steps} steps) ${(bare.ms / 1000).toFixed(2)} s = ${(bare.ms / ideal).toFixed(3)}x; runner / floor = ${paired((r) => r.runner.ms / r.bare.ms).toFixed(3)}`,
    );
    console.log(
      `              the same floor over undici request() ${(requestFloor.ms / 1000).toFixed(2)} s = ${(requestFloor.ms / ideal).toFixed(3)}x, ${(requestFloor.cpuMs / ROWS).toFixed(3)} ms CPU per step: what fetch costs is the difference`,
    );
    console.log(
      `   CPU        ${(measured.cpuMs / ROWS).toFixed(3)} ms per step (user ${(measured.userMs / ROWS).toFixed(3)}, system ${(measured.systemMs / ROWS).toFixed(3)}); the floor's ${(bare.cpuMs / ROWS).toFixed(3)} (user ${(bare.userMs / ROWS).toFixed(3)}, system ${(bare.systemMs / ROWS).toFixed(3)})`,
    );
    console.log(
      `              the runner's own: ${ownCpuPerStep.toFixed(3)} ms per step more than the floor (user time alone ${ownUserPerStep.toFixed(3)}) (target < 0.5 ms)`,
    );
    console.log(
      `   peak RSS   ${measured.rssMB.toFixed(0)} MB (the floor's ${bare.rssMB.toFixed(0)} MB; target < 200 MB)`,
    );
    ok &&= ratio <= 1.1 && ownCpuPerStep < 0.5 && measured.rssMB < 200 && measured.exit === 0;
  }
  {
    const sandbox = await startSandbox({ latency_ms: [20, 200] });
    const pipeline = writePipeline('chain', CHAIN_ROWS, ['generate', 'upscale', 'remove-bg']);
    const runner = worker('runner', pipeline, sandbox.baseUrl);
    const stages = worker('stages', pipeline, sandbox.baseUrl);
    sandbox.stop();
    console.log(`2. ${CHAIN_ROWS} rows x 3 chained steps, concurrency ${C}, random 20-200 ms latency`);
    console.log(
      `   runner (DAG per row)     ${(runner.ms / 1000).toFixed(2)} s (${runner.steps} steps, exit ${runner.exit})`,
    );
    console.log(`   baseline (stage by stage) ${(stages.ms / 1000).toFixed(2)} s (${stages.steps} steps)`);
    console.log(`   runner / baseline = ${(runner.ms / stages.ms).toFixed(3)} (target < 1)`);
    ok &&= runner.ms < stages.ms && runner.exit === 0;
  }
  console.log(ok ? 'within targets' : 'OVER TARGET');
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const sandbox of sandboxes) sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}

function writePipeline(name, rows, operations) {
  const steps = operations
    .map((operation, i) => {
      if (operation === 'generate')
        return `  - id: s0\n    generate: { model: z-image-turbo, prompt: "item \${{ row.sku }}", width: 256, height: 256 }`;
      return `  - id: s${i}\n    ${operation}: { image: "\${{ steps.s${i - 1}.output }}"${operation === 'upscale' ? ', scale: 2' : ''} }`;
    })
    .join('\n');
  const file = path.join(dir, `${name}.yaml`);
  const lines = Array.from({ length: rows }, (_, i) => `SKU${i}`);
  writeFileSync(path.join(dir, `${name}.csv`), `sku\n${lines.join('\n')}\n`);
  writeFileSync(
    file,
    `version: 1\nname: ${name}\napi: { plan: enterprise, quota: 10000000, retry: { base_seconds: 0.05, cap_seconds: 0.5 } }\nconcurrency: ${C}\nrows: { file: ${name}.csv }\nrow_key: sku\nsteps:\n${steps}\n`,
  );
  return file;
}

function worker(mode, pipeline, baseUrl) {
  // A fresh folder each time, all removed at the end: removing thousands of files between two
  // measurements would bill the kernel's work for it to the next one.
  const out = path.join(dir, `out-${++measurements}-${mode}-${path.basename(pipeline, '.yaml')}`);
  const result = spawnSync(
    process.execPath,
    [path.join(here, 'runner-worker.mjs'), mode, pipeline, out, baseUrl, KEY],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (result.status !== 0) throw new Error(`${mode} failed:\n${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

function middle(values) {
  return values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** Each field's median over the runs (fields apart: the measures vary independently). */
function median(runs) {
  return Object.fromEntries(Object.keys(runs[0]).map((field) => [field, middle(runs.map((run) => run[field]))]));
}

function startSandbox(latency) {
  const config = path.join(dir, `sandbox-${Date.now()}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      seed: 1,
      media: 'placeholder',
      keys: [{ key: KEY, name: 'bench', plan: 'enterprise', quota: 10_000_000, credits: 1_000_000_000 }],
      faults: latency,
    }),
  );
  const child = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'sandbox', '--json', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Stopped in the main block, or in its finally when a measurement throws.
  const stop = () => child.kill('SIGTERM');
  sandboxes.add({ stop });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ baseUrl: JSON.parse(out.slice(0, out.indexOf('\n'))).base_url, stop });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}
