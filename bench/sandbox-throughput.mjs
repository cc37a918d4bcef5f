// Benchmark: requests per second the sandbox sustains on loopback, so it never limits the runner's
// benchmarks. Target: at least 3,000 small requests per second on the 2-core machine.
// The sandbox runs in its own process (as in the runner's benchmarks); this process drives it
// with undici keep-alive connections. Each phase is bounded in time and in count, and stops.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const TARGET = 3000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const MAX_REQUESTS = 200_000;
const IN_FLIGHT = 64;
const KEY = 'sk-sandbox-enterprise-00000000000';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const server = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'sandbox', '--json', '--seed', '1'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const baseUrl = await firstJsonLine(server);
  const pool = new Pool(baseUrl, { connections: IN_FLIGHT });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const generate = () =>
    pool.request({
      path: '/v1/generate',
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'a small red shoe', model: 'z-image-turbo', width: 256, height: 256 }),
    });
  const submit = await (
    await pool.request({
      path: '/v1/video',
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'p', model: 'gamma3.1' }),
    })
  ).body.json();
  const poll = () => pool.request({ path: `/v1/video/${submit.request_id}`, method: 'GET', headers });

  await phase('warm-up', generate, 1);
  const results = [
    await phase('POST /v1/generate', generate, SECONDS),
    await phase('GET /v1/video/{id} (status poll)', poll, SECONDS),
  ];
  // The sandbox's own count, as a check that every request counted here really reached it.
  const counted = await (await pool.request({ path: '/__sandbox/stats', method: 'GET' })).body.json();
  console.log(
    `sandbox counted ${counted.requests.total} API requests, ${counted.requests.by_status['200']} answered 200`,
  );
  await pool.close();
  const worst = Math.min(...results);
  console.log(
    `\nslowest: ${Math.round(worst)} requests/s = ${(worst / TARGET).toFixed(2)}x the ${TARGET}/s target: ${worst >= TARGET ? 'within target' : 'BELOW TARGET'}`,
  );
  process.exitCode = worst >= TARGET ? 0 : 1;
} finally {
  server.kill('SIGTERM');
}

async function phase(label, send, seconds) {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline && done + failed < MAX_REQUESTS) {
      const response = await send();
      await response.body.dump();
      if (response.statusCode === 200) done++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const rate = done / ((performance.now() - started) / 1000);
  if (label !== 'warm-up')
    console.log(`${label.padEnd(34)} ${Math.round(rate)} requests/s (${done} answered 200, ${failed} other)`);
  return rate;
}

function firstJsonLine(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline !== -1) resolve(JSON.parse(out.slice(0, newline)).base_url);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}
