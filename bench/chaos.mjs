// `npm run chaos`: proves (or disproves) that assetline never pays twice, by running the built CLI
// against the sandbox with faults on, killing it at random moments and rerunning it until done.
//
//   node bench/chaos.mjs [--steps 1000] [--kills 20] [--seed 7] [--max-runs 60] [--keep] [--cli F]
//   CI size:  node bench/chaos.mjs --steps 200 --kills 5      (env: CHAOS_STEPS, CHAOS_KILLS, ...)
//
// How it works, and why:
// - The sandbox runs as its own process (`dist/cli.js sandbox --json --config F`), so SIGKILLing the
//   runner never touches the service's memory: its counters (`GET /__sandbox/stats`) are the
//   ground truth of what was charged, like a real provider's invoice. `media: placeholder` keeps
//   it from spending the CPU on rendering (2 cores), so the client is what is exercised.
// - Faults, phase 1: 20% 5xx, 5% resets after the work and the charge (the answer is lost), 2%
//   stalls. The sandbox draws them in order (5xx, then stall, then reset-after; see
//   src/sandbox/faults.ts), so the configured stall and reset rates are scaled up to make the
//   *effective* shares 20% and 2% of API requests and 5% of submits (a status poll answers before
//   the reset-after point, so only submits are reset after a charge). Stalls last 1.5 s and then
//   reset; the client's per-attempt `timeout:` is 2 s, a little above, so a stall costs 1.5 s and
//   never hangs a run. The observed shares are printed.
// - The pipeline: steps/5 rows x 5 steps: generate, an edit of its output, tts, text-to-video and
//   image-to-video of the generated image (video jobs take 0.2 s, polled every 0.05 s, 10 s
//   timeout so no job is given up and resubmitted: every step must be charged exactly once).
//   Every prompt or text holds the row key: no two steps share a fingerprint, so the runner's
//   content-addressed cache cannot legitimately reuse anything across rows. (Not upscale: with
//   placeholder media every generated image has the same bytes, so an upscale of it would be the
//   same work in every row.) `retries: 1` makes ~7% of steps fail per run: reruns must resend
//   them, which is where a new idempotency key could pay a second time.
// - 20 SIGKILLs: a seeded PRNG (mulberry32) picks each kill's moment: mostly "after k more
//   journal records of this run" (records whose `t` is not older than the spawn; the journal is
//   compacted at start, so lines are counted by time, not by position), sometimes a random delay
//   of 0-400 ms after spawn (during validation, planning, compaction). k is sized so the kills
//   spread over the whole job. Then the same command is rerun until it exits 0 (1 = some steps
//   failed, 4 = stopped resumable: rerun; 2 = refused, e.g. a lock: reported, not worked around).
//   Every wait is bounded: each run is killed after --run-timeout s and counted as hung.
// - "Duplicate charges": after each run the journal's intent/submitted records map every
//   Idempotency-Key to its step; duplicates = sandbox charges - steps charged at least once (and
//   any key the sandbox charged more than once is listed). Credits the sandbox charged are
//   compared with `totals.credits.paid_total` of the final manifest (printed "n/a" while the field
//   does not exist; a missing field cannot prove anything, so it fails the verdict), and each
//   step's `credits.paid_total` with its charges x its price. Then a rerun of the finished
//   pipeline must send 0 requests and pay nothing.
// - Locks: a SIGKILLed run leaves `.lock`; src/run/run-lock.ts documents that a lock whose PID is
//   gone (same host) is taken over, so the script never deletes it; it counts the stale locks the
//   next run found, and an exit 2 "another run is using" is reported as a blocker.
// - Stops, each on a fresh sandbox with 20 ms latency and no faults, concurrency 4: an account
//   with a quota of 30 requests (the pipeline claims a bigger one, so the plan lets it start) and
//   one with credits for 30 images. Requests after the first 429/402 = that status's count - 1:
//   once the quota or the balance is spent every later request gets the same answer, and the
//   requests already in flight when it came are counted too. Bound: the in-flight window (4).
// - SIGINT: a longer pipeline (3 s video jobs, some 20 s stalls and 50-400 ms latency, so requests
//   are really in flight), SIGINT after 20 journal records; seconds to exit and the exit code
//   (130). Bound: the documented 4 s grace for requests in flight plus 2 s to flush.
// - Clean-up: every child is tracked and killed, and the temp folder removed, in `finally`, on
//   this script's own SIGINT/SIGTERM and on exit.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fetch } from 'undici';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const { values: flags } = parseArgs({
  options: {
    steps: { type: 'string', default: process.env.CHAOS_STEPS ?? '1000' },
    kills: { type: 'string', default: process.env.CHAOS_KILLS ?? '20' },
    seed: { type: 'string', default: process.env.CHAOS_SEED ?? '7' },
    'max-runs': { type: 'string', default: process.env.CHAOS_MAX_RUNS ?? '60' },
    'run-timeout': { type: 'string', default: process.env.CHAOS_RUN_TIMEOUT ?? '240' },
    cli: { type: 'string', default: process.env.CHAOS_CLI ?? path.join(root, 'dist/cli.js') },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log(
    'node bench/chaos.mjs [--steps 1000] [--kills 20] [--seed 7] [--max-runs 60] [--run-timeout 240] [--keep] [--cli dist/cli.js]',
  );
  process.exit(0);
}
const STEPS_PER_ROW = 5;
/** Credits of each step of the chaos pipeline (the catalogue's prices; a cached step plans 0). */
const PRICES = { still: 100, recolor: 200, voice: 10, clip: 1500, motion: 1500 };
const ROWS = Math.max(1, Math.round(Number(flags.steps) / STEPS_PER_ROW));
const STEPS = ROWS * STEPS_PER_ROW;
const KILLS = Number(flags.kills);
const SEED = Number(flags.seed);
const MAX_RUNS = Number(flags['max-runs']);
const RUN_TIMEOUT_MS = Number(flags['run-timeout']) * 1000;
const CLI = path.resolve(flags.cli);
const KEY = 'sk-chaos-key-0000000000000000';
const STOP_CONCURRENCY = 4;
const SIGINT_BOUND_S = 6;

const tmp = mkdtempSync(path.join(tmpdir(), 'assetline-chaos-'));
const children = new Set();
let cleaned = false;
function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (flags.keep) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.log(`\nchaos: ${signal}, stopping`);
    cleanup();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}
process.on('exit', cleanup);

const random = mulberry32(SEED);
const failures = new Map(); // step -> its last journaled failure (kind/code), to explain a double charge
const lines = [];
const checks = [];
const blockers = [];
const say = (text) => {
  console.log(text);
  lines.push(text);
};
const check = (name, ok, text) => {
  checks.push({ name, ok });
  say(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
};
const t0 = Date.now();

try {
  say(
    `assetline chaos: ${STEPS} steps (${ROWS} rows x ${STEPS_PER_ROW}), ${KILLS} SIGKILLs, seed ${SEED}, cli ${path.relative(root, CLI) || CLI}`,
  );
  await chaosPhase();
  await stopPhase('quota', 429);
  await stopPhase('credits', 402);
  await sigintPhase();
} catch (error) {
  check('script', false, `the chaos script itself failed: ${error.stack ?? error}`);
} finally {
  cleanup();
}
const failed = checks.filter((c) => !c.ok).map((c) => c.name);
for (const blocker of blockers) say(`blocked: ${blocker}`);
say(`${failed.length === 0 ? 'PASS' : `FAIL (${failed.join(', ')})`} in ${seconds(Date.now() - t0)} s`);
process.exitCode = failed.length === 0 ? 0 : 1;

// ---------------------------------------------------------------------------------------------
// Phase 1: faults, SIGKILLs, reruns until done.

async function chaosPhase() {
  const started = Date.now();
  const stall = 0.02;
  const errors = 0.2;
  const sandbox = await startSandbox('chaos', {
    seed: SEED,
    media: 'placeholder',
    keys: [{ key: KEY, name: 'chaos', plan: 'enterprise', quota: 10_000_000, credits: 1_000_000_000 }],
    video: { duration_ms: 200 },
    // Drawn in this order: 5xx, stall, reset-after; scaled so each is its share of all requests.
    faults: {
      error_rate: errors,
      stall_rate: stall / (1 - errors),
      stall_ms: 1500,
      reset_after_rate: 0.05 / ((1 - errors) * (1 - stall / (1 - errors))),
    },
  });
  const dir = path.join(tmp, 'chaos');
  const pipeline = writePipeline(dir, 'chaos', ROWS, chaosSteps(), {
    api: `{ plan: enterprise, quota: 10000000, video: { poll_interval_seconds: 0.05, expected_seconds: 0.2, timeout_seconds: 10 }, retry: { base_seconds: 0.02, cap_seconds: 0.2 } }`,
    concurrency: '{ total: 8 }',
    defaults: '{ retries: 1, timeout: 2s }',
  });
  const journal = path.join(dir, 'out', 'chaos', 'journal.jsonl');
  const keyToStep = new Map();
  // Records a run appends per step: intent, answered, downloaded (+ submitted for video, ~40%).
  const perKill = Math.max(2, Math.round((0.6 * 3.4 * STEPS) / Math.max(1, KILLS)));
  const runs = [];
  let kills = 0;
  let staleLocks = 0;
  let finalRun;
  for (let n = 1; n <= MAX_RUNS; n++) {
    let trigger;
    if (kills < KILLS) {
      trigger =
        random() < 0.15 ? { delayMs: Math.floor(random() * 400) } : { records: 1 + Math.floor(random() * 2 * perKill) };
    }
    if (existsSync(path.join(dir, 'out', 'chaos', '.lock'))) staleLocks++;
    const result = await runCli(pipeline, dir, sandbox, { trigger, journal });
    harvestKeys(journal, keyToStep);
    runs.push(result);
    if (result.killed) {
      kills++;
      continue;
    }
    if (result.hung) {
      blockers.push(`run ${n} did not finish within ${RUN_TIMEOUT_MS / 1000} s and was killed`);
      break;
    }
    if (result.code === 0) {
      finalRun = result;
      break;
    }
    if (result.code === 1 || result.code === 4) continue;
    if (result.code === 2 && /another run is using|lock/i.test(result.stderr)) {
      blockers.push(`run ${n} refused with exit 2 because of the lock: ${lastLine(result.stderr)}`);
      break;
    }
    blockers.push(`run ${n} exited ${result.code ?? result.signal}: ${lastLine(result.stderr)}`);
    break;
  }
  const stats = await sandbox.stats();
  const codes = runs.map((r) => (r.killed ? 'K' : r.hung ? 'H' : String(r.code)));
  say(
    `runs: ${runs.length} (${kills} SIGKILLed of ${KILLS} planned), exit codes ${codes.join(' ')} (K = SIGKILL), ${seconds(runs.reduce((s, r) => s + r.ms, 0))} s of runs`,
  );
  if (kills < KILLS) say(`note: the pipeline finished before all ${KILLS} kills were used`);
  say(`     locks: ${staleLocks} runs started over a .lock left by a SIGKILLed run (taken over by the CLI)`);

  const manifestFile = path.join(dir, 'out', 'chaos', 'manifest.json');
  const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : undefined;
  const counts = manifest?.totals.steps ?? {};
  const finished = (counts.done ?? 0) + (counts.cached ?? 0);
  check(
    'steps',
    finalRun !== undefined && finished === STEPS,
    `steps done: ${finished} of ${STEPS} (final run: done ${counts.done ?? '?'}, cached ${counts.cached ?? '?'}, failed ${counts.failed ?? '?'}, skipped ${counts.skipped ?? '?'}, deferred ${counts.deferred ?? '?'}; final exit ${finalRun ? finalRun.code : 'none'})`,
  );

  // Duplicates: charges per step, via the idempotency keys the journal recorded for each step.
  const byKey = stats.charges.by_idempotency_key;
  const perStep = new Map();
  let unmapped = 0;
  for (const [key, count] of Object.entries(byKey)) {
    const step = keyToStep.get(key);
    if (step === undefined) unmapped++;
    const id = step ?? `?${key}`;
    perStep.set(id, (perStep.get(id) ?? 0) + count);
  }
  const duplicates = stats.charges.count - perStep.size;
  const twice = [...perStep].filter(([, count]) => count > 1);
  const keysTwice = Object.entries(byKey).filter(([, count]) => count > 1);
  check(
    'duplicates',
    duplicates === 0 && keysTwice.length === 0,
    `duplicate charges: ${duplicates} (sandbox charges ${stats.charges.count} for ${perStep.size} distinct steps of ${STEPS}; ${twice.length} steps paid more than once${
      twice.length
        ? `, e.g. ${twice
            .slice(0, 3)
            .map(([s, c]) => `${s} x${c}${failures.has(s) ? ` (failed ${failures.get(s)})` : ''}`)
            .join(', ')}`
        : ''
    }; keys charged twice: ${keysTwice.length}; charges without a key: ${stats.charges.without_idempotency_key}${unmapped ? `; ${unmapped} keys not in any journal` : ''})`,
  );

  const paid = manifest?.totals.credits.paid_total;
  const charged = stats.charges.credits;
  check(
    'paid_total',
    typeof paid === 'number' && paid === charged,
    `credits: sandbox charged ${fmt(charged)}, manifest totals.credits.paid_total ${typeof paid === 'number' ? fmt(paid) : 'n/a (field missing)'} (final run's credits.used ${fmt(manifest?.totals.credits.used ?? 0)}, planned ${fmt(manifest?.totals.credits.planned ?? 0)}; ${fmt(ROWS * Object.values(PRICES).reduce((a, b) => a + b, 0))} if each step is paid once)`,
  );
  if (typeof paid === 'number' && manifest) {
    // Per step too: the step's paid_total against what the sandbox charged under its keys.
    let mismatched = 0;
    for (const row of manifest.rows)
      for (const step of row.steps) {
        const instance = `${row.key}/${step.step}`;
        const price = PRICES[step.step] ?? 0;
        const sandboxPaid = (perStep.get(instance) ?? 0) * price;
        if (step.credits.paid_total !== undefined && step.credits.paid_total !== sandboxPaid) mismatched++;
      }
    check(
      'paid_total-per-step',
      mismatched === 0,
      `per step: ${mismatched} steps whose credits.paid_total differs from what the sandbox charged under their keys`,
    );
  }
  const f = stats.faults;
  const all = stats.requests.total;
  const creates = Object.entries(stats.requests.by_path)
    .filter(([p]) => p !== '/v1/video/status' && p !== '/v1/video/{request_id}')
    .reduce((sum, [, n]) => sum + n, 0);
  const fivexx = ['status_500', 'status_502', 'status_503'].reduce((sum, k) => sum + (f[k] ?? 0), 0);
  const share = (n, of) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
  say(
    `     sandbox: ${fmt(all)} requests (${fmt(creates)} submits); 5xx ${fivexx} (${share(fivexx, all)}), resets after the charge ${f.reset_after ?? 0} (${share(f.reset_after ?? 0, creates)} of submits), stalls ${f.stall ?? 0} (${share(f.stall ?? 0, all)}); ${stats.idempotent_replays} idempotent replays; video jobs ${JSON.stringify(stats.jobs)}`,
  );

  // A rerun of the finished pipeline must send nothing and pay nothing.
  if (finalRun) {
    const again = await runCli(pipeline, dir, sandbox, { journal });
    const after = await sandbox.stats();
    check(
      'idle-rerun',
      again.code === 0 && after.charges.count === stats.charges.count,
      `rerun of the finished pipeline: exit ${again.code}, ${after.requests.total - stats.requests.total} requests, ${after.charges.count - stats.charges.count} charges (expect 0, 0)`,
    );
  }
  await sandbox.stop();
  say(`     phase 1 took ${seconds(Date.now() - started)} s`);
}

function chaosSteps() {
  return [
    `  - id: still`,
    `    generate: { model: z-image-turbo, prompt: "chaos still of \${{ row.key }}", width: 256, height: 256 }`,
    `  - id: recolor`,
    `    edit: { model: eta-edit, image: "\${{ steps.still.output }}", prompt: "recolor \${{ row.key }} in blue" }`,
    `  - id: voice`,
    `    tts: { model: tts-alpha, text: "Voice-over for \${{ row.key }}." }`,
    `  - id: clip`,
    `    video: { model: beta-v2.5-turbo-pro, prompt: "chaos clip of \${{ row.key }}", duration: 5, aspect_ratio: "1:1" }`,
    `  - id: motion`,
    `    video: { model: zeta-v1.5-pro-i2v, image: "\${{ steps.still.output }}", prompt: "slow zoom on \${{ row.key }}", duration: 4 }`,
  ];
}

/** Every Idempotency-Key the journal names (intents and video submissions), with its step; failures. */
function harvestKeys(journal, into) {
  if (!existsSync(journal)) return;
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    if (!line.includes('idempotency_key') && !line.includes('"failed"')) continue;
    try {
      const record = JSON.parse(line);
      if (record.idempotency_key) into.set(record.idempotency_key, record.key);
      if (record.type === 'failed') failures.set(record.key, `${record.kind}/${record.code}`);
    } catch {
      // a line cut short by a kill
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Phase 2: a 429 or 402 must stop new work; SIGINT must end the run quickly and resumably.

async function stopPhase(name, status) {
  const started = Date.now();
  const allowed = 30;
  const account =
    status === 429
      ? { key: KEY, name, plan: 'enterprise', quota: allowed, credits: 1_000_000_000 }
      : { key: KEY, name, plan: 'enterprise', quota: 1_000_000, credits: allowed * 100 };
  const sandbox = await startSandbox(name, {
    seed: SEED,
    media: 'placeholder',
    keys: [account],
    faults: { latency_ms: 20 },
  });
  const dir = path.join(tmp, name);
  const pipeline = writePipeline(
    dir,
    name,
    100,
    [
      `  - id: still`,
      `    generate: { model: z-image-turbo, prompt: "${name} \${{ row.key }}", width: 256, height: 256 }`,
    ],
    {
      api: '{ plan: enterprise, quota: 1000000, retry: { base_seconds: 0.02, cap_seconds: 0.2 } }',
      concurrency: String(STOP_CONCURRENCY),
      defaults: '{ timeout: 10s }',
    },
  );
  const result = await runCli(pipeline, dir, sandbox, {});
  const stats = await sandbox.stats();
  await sandbox.stop();
  const seen = stats.requests.by_status[String(status)] ?? 0;
  const after = Math.max(0, seen - 1);
  check(
    `after-${status}`,
    seen > 0 && after <= STOP_CONCURRENCY && result.code === 4,
    `requests after the first ${status} (${name}): ${seen > 0 ? after : `n/a, no ${status} was answered`} (bound: the in-flight window, ${STOP_CONCURRENCY}); ${stats.requests.total} requests in all, ${stats.charges.count} charged; exit ${result.code ?? result.signal} (expect 4), ${seconds(Date.now() - started)} s`,
  );
}

async function sigintPhase() {
  const sandbox = await startSandbox('sigint', {
    seed: SEED,
    media: 'placeholder',
    keys: [{ key: KEY, name: 'sigint', plan: 'enterprise', quota: 10_000_000, credits: 1_000_000_000 }],
    video: { duration_ms: 3000 },
    faults: { latency_ms: [50, 400], stall_rate: 0.1, stall_ms: 20_000 },
  });
  const dir = path.join(tmp, 'sigint');
  const pipeline = writePipeline(
    dir,
    'sigint',
    200,
    [
      `  - id: still`,
      `    generate: { model: z-image-turbo, prompt: "sigint \${{ row.key }}", width: 256, height: 256 }`,
      `  - id: clip`,
      `    video: { model: beta-v2.5-turbo-pro, prompt: "sigint clip \${{ row.key }}", duration: 5, aspect_ratio: "1:1" }`,
    ],
    {
      api: '{ plan: enterprise, quota: 10000000, video: { poll_interval_seconds: 0.5, expected_seconds: 3, timeout_seconds: 60 } }',
      concurrency: '8',
      defaults: '{ timeout: 30s }',
    },
  );
  const journal = path.join(dir, 'out', 'sigint', 'journal.jsonl');
  const result = await runCli(pipeline, dir, sandbox, { trigger: { records: 20, signal: 'SIGINT' }, journal });
  await sandbox.stop();
  if (!result.signalled) {
    check('sigint', false, `SIGINT: the run ended (exit ${result.code}) before 20 journal records; nothing measured`);
    return;
  }
  const s = result.afterSignalMs / 1000;
  check(
    'sigint',
    result.code === 130 && s <= SIGINT_BOUND_S,
    `seconds from SIGINT to exit: ${s.toFixed(2)} (bound ${SIGINT_BOUND_S}: 4 s grace + 2 s flush), exit ${result.code ?? result.signal} (expect 130)${result.hung ? ', hung: SIGKILLed' : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Processes.

async function startSandbox(name, config) {
  const file = path.join(tmp, `sandbox-${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--json', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const first = await bounded(
    new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
    }),
    15_000,
    'the sandbox did not start',
  );
  const baseUrl = first.base_url;
  return {
    baseUrl,
    key: first.keys[0].key,
    async stats() {
      const response = await bounded(
        fetch(`${baseUrl}/__sandbox/stats`),
        10_000,
        'the sandbox did not answer its stats',
      );
      return response.json();
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await bounded(exited, 5000, '').catch(() => child.kill('SIGKILL'));
      children.delete(child);
    },
  };
}

/**
 * One `assetline run`. trigger: { delayMs } or { records: k } (k journal records of this run),
 * then SIGKILL (or trigger.signal). Bounded by RUN_TIMEOUT_MS.
 */
async function runCli(pipeline, dir, sandbox, { trigger, journal }) {
  const spawnedAt = Date.now();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      pipeline,
      '--out',
      path.join(dir, 'out'),
      '--state-dir',
      path.join(dir, 'state'),
      '--json',
      '--log-level',
      'warn',
    ],
    {
      cwd: dir,
      env: { ...process.env, ASSETLINE_BASE_URL: sandbox.baseUrl, ASSETLINE_API_KEY: sandbox.key },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout = (stdout + chunk).slice(-20_000)));
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let signalledAt;
  let hung = false;
  const fire = () => {
    if (signalledAt !== undefined || child.exitCode !== null) return;
    signalledAt = Date.now();
    child.kill(trigger.signal ?? 'SIGKILL');
  };
  let watcher;
  if (trigger?.delayMs !== undefined) watcher = setTimeout(fire, trigger.delayMs);
  else if (trigger?.records !== undefined) {
    const counter = journalCounter(journal, spawnedAt);
    watcher = setInterval(() => {
      if (counter() >= trigger.records) fire();
    }, 20);
  }
  const timeout = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, RUN_TIMEOUT_MS);
  const { code, signal } = await exited;
  clearTimeout(timeout);
  clearTimeout(watcher);
  clearInterval(watcher);
  children.delete(child);
  const now = Date.now();
  const killed =
    signalledAt !== undefined && signal === 'SIGKILL' && !hung && (trigger.signal ?? 'SIGKILL') === 'SIGKILL';
  return {
    code,
    signal,
    killed,
    hung,
    signalled: signalledAt !== undefined,
    afterSignalMs: signalledAt === undefined ? undefined : now - signalledAt,
    ms: now - spawnedAt,
    stdout,
    stderr,
  };
}

/** Counts the journal records written since `since` (by their `t`), reading only what is new. */
function journalCounter(file, since) {
  let inode;
  let offset = 0;
  let rest = '';
  let count = 0;
  return () => {
    let fd;
    try {
      fd = openSync(file, 'r');
    } catch {
      return count;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== inode || stat.size < offset) {
        // Compacted (rewritten) at the start of the run: read it again from the top.
        inode = stat.ino;
        offset = 0;
        rest = '';
        count = 0;
      }
      if (stat.size > offset) {
        const buffer = Buffer.alloc(stat.size - offset);
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        offset += read;
        const text = rest + buffer.subarray(0, read).toString('utf8');
        const parts = text.split('\n');
        rest = parts.pop() ?? '';
        for (const part of parts) {
          const match = /"t":(\d+)/.exec(part);
          if (match && Number(match[1]) >= since - 1000) count++;
        }
      }
    } finally {
      closeSync(fd);
    }
    return count;
  };
}

function writePipeline(dir, name, rows, steps, { api, concurrency, defaults }) {
  rmSync(dir, { recursive: true, force: true });
  const file = path.join(dir, 'pipeline.yaml');
  const keys = Array.from({ length: rows }, (_, i) => `${name}-${String(i + 1).padStart(5, '0')}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'rows.csv'), `key\n${keys.join('\n')}\n`);
  writeFileSync(
    file,
    [
      'version: 1',
      `name: ${name}`,
      `api: ${api}`,
      `concurrency: ${concurrency}`,
      `defaults: ${defaults}`,
      'rows: { file: rows.csv }',
      'row_key: key',
      'steps:',
      ...steps,
      '',
    ].join('\n'),
  );
  return file;
}

// ---------------------------------------------------------------------------------------------
// Small things.

function bounded(promise, ms, message) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lastLine(text) {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? ''
  ).slice(0, 300);
}

function seconds(ms) {
  return (ms / 1000).toFixed(1);
}

function fmt(n) {
  return Number(n).toLocaleString('en-US');
}
