// Benchmark: one pipeline spread over 4 shards (as 4 matrix jobs would run it), against one run of
// the same rows, measured in this same run: the 4 shards at once on this machine, and each alone. The sandbox answers every request after
// 500 ms (its own process), each run has a concurrency of 8, so one run is bound by latency and
// concurrency, as against the real service: 4 shards should take close to 1/4 of its time.
// Target: at most 0.35 (a quarter, plus the unevenness of hashing 320 keys into 4 shards and each
// process's start-up, four processes on two cores). Each shard gets a quarter of the quota by default, which is ample here.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = Number(process.env.BENCH_ROWS ?? 320);
const SHARDS = 4;
const TARGET_RATIO = 0.35;
const KEY = 'sk-bench-shards-000000000000000';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.js');

const dir = mkdtempSync(path.join(tmpdir(), 'assetline-shards-'));
writeFileSync(
  path.join(dir, 'sandbox.yaml'),
  `seed: 3\nmedia: placeholder\nkeys:\n  - { key: ${KEY}, name: bench, plan: enterprise, quota: 1000000, credits: 100000000 }\nfaults: { latency_ms: [500, 500] }\n`,
);
const lines = ['sku,name'];
for (let i = 0; i < ROWS; i++) lines.push(`SKU-${i},Trail Runner ${i}`);
writeFileSync(path.join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
writeFileSync(
  path.join(dir, 'pipeline.yaml'),
  `version: 1
name: shards
api: { plan: enterprise, quota: 1000000 }
concurrency: 8
rows: { file: rows.csv }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "Studio photo of the \${{ row.name }}", width: 256, height: 256 }
`,
);

const sandbox = spawn(process.execPath, [cli, 'sandbox', '--json', '--config', path.join(dir, 'sandbox.yaml')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const baseUrl = await firstJsonLine(sandbox);
  const env = { ...process.env, ASSETLINE_BASE_URL: baseUrl, ASSETLINE_API_KEY: KEY };
  const run = (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cli, 'run', path.join(dir, 'pipeline.yaml'), '--log-level', 'error', '--json', ...args],
        { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => (err += chunk));
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`run ${args.join(' ')}: exit ${code}\n${err}`)),
      );
    });
  const timed = async (work) => {
    const started = performance.now();
    await work();
    return (performance.now() - started) / 1000;
  };

  const single = await timed(() => run(['--out', 'single', '--state-dir', 'state-single']));
  const shardRows = [];
  const sharded = await timed(() =>
    Promise.all(
      Array.from({ length: SHARDS }, (_, i) =>
        run(['--shard', `${i + 1}/${SHARDS}`, '--out', 'sharded', '--state-dir', 'state-sharded']).then((summary) => {
          shardRows[i] = summary.steps.done;
        }),
      ),
    ),
  );
  // On a matrix each shard has a runner of its own; here the four share two cores with the sandbox.
  // So each shard is also timed alone (into a fresh folder): the slowest is what a matrix would take.
  const alone = [];
  for (let i = 0; i < SHARDS; i++) {
    const args = ['--shard', `${i + 1}/${SHARDS}`, '--out', `alone-${i + 1}`, '--state-dir', `state-alone-${i + 1}`];
    alone.push(await timed(() => run(args)));
  }
  const ratio = sharded / single;
  const matrix = Math.max(...alone) / single;
  const ideal = Math.ceil(ROWS / 8) * 0.5;
  console.log(
    `rows: ${ROWS}, one step each; 500 ms per request; concurrency 8 per run; ideal for one run ${ideal.toFixed(1)} s`,
  );
  console.log(`one run:                     ${single.toFixed(2)} s`);
  console.log(
    `${SHARDS} shards at once, this machine: ${sharded.toFixed(2)} s (rows per shard: ${shardRows.join(', ')})`,
  );
  console.log(`each shard alone:            ${alone.map((seconds) => `${seconds.toFixed(2)} s`).join(', ')}`);
  console.log(
    `ratio, ${SHARDS} shards at once on this 2-core machine: ${ratio.toFixed(2)} (ideal ${(1 / SHARDS).toFixed(2)})`,
  );
  console.log(
    `ratio, a runner per shard (the slowest shard alone): ${matrix.toFixed(2)}; target at most ${TARGET_RATIO}`,
  );
  console.log(matrix <= TARGET_RATIO ? 'within target' : 'OVER TARGET');
  process.exitCode = matrix <= TARGET_RATIO ? 0 : 1;
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

function firstJsonLine(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end !== -1) resolve(JSON.parse(out.slice(0, end)).base_url);
    });
    child.on('exit', () => reject(new Error('sandbox exited')));
  });
}
