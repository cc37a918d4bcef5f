// Benchmark: how fast assetline starts. `run --help`, and a `run` of a one-step pipeline up to its
// first connection to the service, against `validate --help` in the same run. The service here
// is a local TCP port that accepts and drops every connection (unreachable, as far as the client
// can tell), so the figure is the start-up alone, with no network in it.
// Target: both within 1.15x of `validate --help`. Rounds are interleaved and medians compared,
// because the machine is noisy; run `npm run build` first (npm run bench does).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const TARGET = 1.15;
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const dir = mkdtempSync(path.join(tmpdir(), 'assetline-startup-'));

const PIPELINE = `version: 1
name: startup
defaults: { retries: 0 }
rows:
  - { sku: A }
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "a shoe", width: 512, height: 512 }
`;

/** Accepts and drops every connection, and says when the first one came. */
function droppingServer() {
  const waiting = [];
  const server = net.createServer((socket) => {
    const at = performance.now();
    socket.destroy();
    waiting.shift()?.(at);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        nextConnection: () => new Promise((done) => waiting.push(done)),
        close: () => server.close(),
      }),
    ),
  );
}

function exited(child) {
  return new Promise((resolve) => child.on('exit', resolve));
}

/** Milliseconds from spawn to exit. */
async function untilExit(args) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { stdio: 'ignore' });
  const code = await exited(child);
  if (code !== 0) throw new Error(`assetline ${args.join(' ')} exited ${code}`);
  return performance.now() - started;
}

/** Milliseconds from spawn to the run's first connection to the service. */
async function untilFirstConnection(service, round) {
  const out = path.join(dir, `out-${round}`);
  const connected = service.nextConnection();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [cli, 'run', path.join(dir, 'startup.yaml'), '--out', out, '--state-dir', path.join(dir, `state-${round}`)],
    {
      stdio: 'ignore',
      env: { ...process.env, ASSETLINE_BASE_URL: service.url, ASSETLINE_API_KEY: 'sk-startup-bench-key' },
    },
  );
  const at = await Promise.race([
    connected,
    exited(child).then((code) => Promise.reject(new Error(`run exited ${code} before connecting`))),
  ]);
  await exited(child);
  return at - started;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  writeFileSync(path.join(dir, 'startup.yaml'), PIPELINE);
  const service = await droppingServer();
  const times = { validate: [], help: [], run: [] };
  // One unmeasured round of each, so the disk cache is warm for all three alike.
  await untilExit(['validate', '--help']);
  await untilExit(['run', '--help']);
  await untilFirstConnection(service, 'warm');
  for (let round = 0; round < ROUNDS; round++) {
    times.validate.push(await untilExit(['validate', '--help']));
    times.help.push(await untilExit(['run', '--help']));
    times.run.push(await untilFirstConnection(service, round));
  }
  service.close();
  const base = median(times.validate);
  console.log(`start-up, medians of ${ROUNDS} interleaved rounds (node ${process.version})`);
  console.log(`  validate --help                 ${base.toFixed(0)} ms (the baseline)`);
  let ok = true;
  for (const [label, values] of [
    ['run --help', times.help],
    ['run, spawn to first connection', times.run],
  ]) {
    const ratio = median(values) / base;
    ok &&= ratio <= TARGET;
    console.log(
      `  ${label.padEnd(31)} ${median(values).toFixed(0)} ms = ${ratio.toFixed(2)}x the baseline (target ${TARGET}x)`,
    );
  }
  console.log(ok ? 'within target' : 'OVER TARGET');
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
