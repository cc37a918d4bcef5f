// Benchmark: how fast a big run stops when interrupted, and how much memory it takes on the way.
// The contract (docs/run.md, "Signals"): SIGINT or SIGTERM stops starting steps, lets requests in
// flight finish for up to 4 s, flushes the journal, writes the manifest with status `interrupted`
// and exits 130 / 143. Ctrl-C on a catalogue run, or a cancelled CI job (which follows up with
// SIGTERM, then SIGKILL, within ~10 s), must see that promptly, and a run must fit a small CI box.
//   A pipeline of 100,000 rows x 3 steps (generate, an upscale of it, tts) runs in its own process
//   (`node dist/cli.js run`) against a sandbox in another process (placeholder media, no latency,
//   enterprise quota), so the measured runner is alone. Once its journal shows 20,000 steps settled
//   (observed, never a fixed sleep) the runner gets the signal. Measured: seconds from the signal to
//   the process's exit, the exit code, and the peak RSS over its whole life (GNU time's maximum
//   resident set size when /usr/bin/time is there, else VmHWM polled every 100 ms). Beside them, from
//   the runner's own log lines: when the handler ran and when "finished" was logged.
//   Targets: exit within 7 s of the signal (the 4 s grace plus 3 s), peak RSS at most 600 MB.
//   With no latency nothing is in flight for long, so the grace is not used: what is measured is the
//   runner's own work after the signal. --latency 10000 adds the full grace, as against the service.
//   (The sandbox's placeholder media are the same bytes each time, so most upscales are served from
//   the content-addressed cache: they settle as `cached`, which is fine here.)
// Three rounds, each with a fresh sandbox and output folder: SIGINT (expect 130), then SIGTERM (143),
// after 20,000 steps; then SIGINT after 90% of the steps, where the run holds the most.
// Every wait is bounded; the sandbox, the runner and the temporary folder are removed in all cases.
// Options: --rows N (or BENCH_INTERRUPT_ROWS), --at N steps settled before the signal (or
// BENCH_INTERRUPT_AT; default 20,000, at most a third of the steps), --signal SIGINT|SIGTERM (one
// round only), --latency MS (or BENCH_INTERRUPT_LATENCY_MS: the sandbox answers after MS),
// --keep (leave the temporary folder, printed, with each round's output, stderr.log and stdout.log),
// --cli FILE (run another build, e.g. an instrumented copy of dist/), --node-arg ARG (repeatable:
// a flag for the runner's node only, e.g. --node-arg=--cpu-prof or --node-arg=--trace-gc).
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const { values } = parseArgs({
  options: {
    rows: { type: 'string' },
    at: { type: 'string' },
    signal: { type: 'string' },
    keep: { type: 'boolean', default: false },
    latency: { type: 'string' },
    cli: { type: 'string' },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
/** The CLI under test (--cli: e.g. an instrumented copy of dist/); the sandbox always runs dist/. */
const cli = path.join(root, 'dist/cli.js');
const runnerCli = values.cli ? path.resolve(values.cli) : cli;
const ROWS = Number(values.rows ?? process.env.BENCH_INTERRUPT_ROWS ?? 100_000);
const STEPS = ROWS * 3;
const AT = Number(values.at ?? process.env.BENCH_INTERRUPT_AT ?? Math.min(20_000, Math.floor(STEPS / 3)));
/** The sandbox's delay before each answer (ms); 0 by default: the runner, not the API, is measured. */
const LATENCY_MS = Number(values.latency ?? process.env.BENCH_INTERRUPT_LATENCY_MS ?? 0);
const SIGNALS = values.signal ? [values.signal] : ['SIGINT', 'SIGTERM'];
/**
 * The rounds: each signal early (AT steps settled), and by default one SIGINT late as well (90% of
 * the steps settled), where the run holds the most: an interrupt must be quick at any moment.
 */
const ROUNDS = [
  ...SIGNALS.map((signal) => ({ signal, at: AT })),
  ...(values.signal || values.at ? [] : [{ signal: 'SIGINT', at: Math.floor(STEPS * 0.9) }]),
];
const EXPECTED = { SIGINT: 130, SIGTERM: 143 };
const TARGET_EXIT_S = 7;
const TARGET_RSS_MB = 600;
const KEY = 'sk-bench-interrupt-0000000000';
/** Bounds: the run must show its first settled step within this, then keep settling steps. */
const START_TIMEOUT_MS = 300_000;
const STALL_TIMEOUT_MS = 120_000;
/** After the signal, the runner is killed (and the round counted over target) past this. */
const EXIT_TIMEOUT_MS = 180_000;
const n = (x) => Math.round(x).toLocaleString('en-US');

if (!Number.isInteger(ROWS) || ROWS < 1 || !Number.isInteger(AT) || AT < 1 || AT >= STEPS || !(LATENCY_MS >= 0))
  throw new Error(`--rows must be a positive whole number and --at between 1 and rows x 3 - 1`);
for (const signal of SIGNALS) if (!(signal in EXPECTED)) throw new Error(`--signal: SIGINT or SIGTERM, not ${signal}`);
if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
const timeBin = gnuTime();

const dir = mkdtempSync(path.join(tmpdir(), 'assetline-interrupt-bench-'));
/** Everything started here, stopped in the finally block (and on our own Ctrl-C). */
const children = new Set();
/** The runners' node processes: under GNU time, killing time would leave them running. */
const runnerPids = new Set();
const killAll = () => {
  for (const pid of runnerPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const child of children) {
    try {
      child.kill();
    } catch {
      // already gone
    }
  }
};
const onOwnSignal = (signal) => {
  killAll();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  process.exit(EXPECTED[signal] ?? 1);
};
process.once('SIGINT', onOwnSignal);
process.once('SIGTERM', onOwnSignal);

let ok = true;
try {
  const rowsFile = path.join(dir, 'rows.csv');
  const lines = ['sku,name'];
  for (let i = 0; i < ROWS; i++) lines.push(`SKU${i},item ${i}`);
  writeFileSync(rowsFile, `${lines.join('\n')}\n`);
  const pipeline = path.join(dir, 'interrupt.yaml');
  writeFileSync(
    pipeline,
    [
      'version: 1',
      'name: interrupt',
      'api: { plan: enterprise, quota: 10000000, retry: { base_seconds: 0.05, cap_seconds: 0.5 } }',
      'budget: { max_credits: 1000000000 }',
      'concurrency: 8',
      'rows: { file: rows.csv }',
      'row_key: sku',
      'steps:',
      '  - id: photo',
      '    generate: { model: z-image-turbo, prompt: "Studio photo of ${{ row.name }}", width: 256, height: 256 }',
      '  - id: big',
      '    upscale: { image: "${{ steps.photo.output }}", scale: 2 }',
      '  - id: voice',
      '    tts: { text: "Meet ${{ row.name }}", model: tts-alpha }',
      '',
    ].join('\n'),
  );
  const sandboxConfig = path.join(dir, 'sandbox.json');
  writeFileSync(
    sandboxConfig,
    JSON.stringify({
      seed: 1,
      media: 'placeholder',
      keys: [{ key: KEY, name: 'bench', plan: 'enterprise', quota: 10_000_000, credits: 1_000_000_000_000 }],
      ...(LATENCY_MS > 0 && { faults: { latency_ms: LATENCY_MS } }),
    }),
  );
  console.log(
    `interrupt: ${n(ROWS)} rows x 3 steps (generate, upscale, tts), concurrency 8, sandbox in its own process${LATENCY_MS > 0 ? ` (${n(LATENCY_MS)} ms latency)` : ''}; peak RSS from ${timeBin ? 'GNU time' : 'VmHWM polled every 100 ms'}`,
  );
  for (const { signal, at: settleFirst } of ROUNDS) {
    const r = await round(signal, settleFirst, pipeline, sandboxConfig);
    const exitS = r.exitMs / 1000;
    const within = r.exitCode === EXPECTED[signal] && exitS <= TARGET_EXIT_S && r.rssMB <= TARGET_RSS_MB;
    ok &&= within;
    console.log(
      `interrupt: ${n(ROWS)} rows x 3 steps, ${signal} at ${n(r.settledAtSignal)} settled: exit ${r.exitCode ?? `killed (${r.exitSignal})`} after ${exitS.toFixed(1)} s (target ${TARGET_EXIT_S} s, ${(exitS / TARGET_EXIT_S).toFixed(2)}x); peak RSS ${n(r.rssMB)} MB (target ${TARGET_RSS_MB} MB, ${(r.rssMB / TARGET_RSS_MB).toFixed(2)}x)${r.exitCode === EXPECTED[signal] ? '' : ` (expected exit ${EXPECTED[signal]})`}`,
    );
    // Where the time went, from the runner's own log lines (pino's "time"), no instrumentation.
    const at = (t) => (t === undefined ? '-' : `+${((t - r.signalEpoch) / 1000).toFixed(2)} s`);
    console.log(
      `   ${(r.runMs / 1000).toFixed(1)} s of work before the signal; after it: handler logged ${at(r.log.handler)}, "finished" logged ${at(r.log.finished)} (scheduler drained, manifest written; report.html is written after it), exit +${exitS.toFixed(2)} s; RSS at the signal ${n(r.rssAtSignalMB)} MB`,
    );
    console.log(
      `   manifest.json ${r.manifest.bytes === undefined ? 'missing' : `${(r.manifest.bytes / 1e6).toFixed(1)} MB, status ${r.manifest.status}`}; report.html ${r.reportBytes === undefined ? 'missing' : `${(r.reportBytes / 1e6).toFixed(1)} MB`}`,
    );
  }
  console.log(ok ? 'within targets' : 'OVER TARGET');
  process.exitCode = ok ? 0 : 1;
} finally {
  killAll();
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

async function round(signal, settleFirst, pipeline, sandboxConfig) {
  const work = path.join(dir, `${signal}-${settleFirst}`);
  mkdirSync(work, { recursive: true });
  const out = path.join(work, 'out');
  const journal = path.join(out, 'interrupt', 'journal.jsonl');
  const sandbox = await startSandbox(sandboxConfig);
  try {
    const command = [
      ...values['node-arg'],
      runnerCli,
      'run',
      pipeline,
      '--out',
      out,
      '--state-dir',
      path.join(work, 'state'),
      '--log-level',
      'info',
    ];
    // stdout holds only what node itself prints there (e.g. --node-arg=--trace-gc): kept with --keep.
    const stdoutFd = values.keep ? openSync(path.join(work, 'stdout.log'), 'w') : undefined;
    const child = spawn(timeBin ?? process.execPath, timeBin ? ['-v', process.execPath, ...command] : command, {
      cwd: dir,
      env: { ...process.env, ASSETLINE_BASE_URL: sandbox.baseUrl, ASSETLINE_API_KEY: KEY },
      stdio: ['ignore', stdoutFd ?? 'ignore', 'pipe'],
    });
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    children.add(child);
    const exited = new Promise((resolve) =>
      child.once('exit', (code, exitSignal) => resolve({ code, exitSignal, at: performance.now() })),
    );
    let gone;
    void exited.then((e) => (gone = e));
    // stderr: the runner's JSON log lines, then GNU time's report. Lines kept only when needed.
    const log = { handler: undefined, finished: undefined };
    const tail = [];
    let partial = '';
    child.stderr.setEncoding('utf8');
    // With --keep, all of it is kept beside the output too (<round>/stderr.log).
    const keep = values.keep ? createWriteStream(path.join(work, 'stderr.log')) : undefined;
    child.stderr.on('data', (chunk) => {
      keep?.write(chunk);
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        tail.push(line);
        if (tail.length > 200) tail.shift();
        if (line.startsWith('{')) {
          try {
            const entry = JSON.parse(line);
            if (/no new steps are started/.test(entry.msg ?? '')) log.handler ??= entry.time;
            if (/^finished:/.test(entry.msg ?? '')) log.finished = entry.time;
          } catch {
            // not a log line
          }
        }
      }
    });
    const closed = new Promise((resolve) => child.stderr.once('close', resolve));

    // The node process itself (GNU time's child), for the signal and the VmHWM samples.
    const started = performance.now();
    let pid = timeBin ? undefined : child.pid;
    let peakKB = 0;
    let currentKB = 0;
    const sample = () => {
      if (pid === undefined && timeBin) pid = childPid(child.pid);
      if (pid === undefined) return;
      if (!gone) runnerPids.add(pid);
      const status = procStatus(pid);
      if (status) {
        peakKB = Math.max(peakKB, status.hwmKB);
        currentKB = status.rssKB;
      }
    };
    const sampler = setInterval(sample, 100);
    try {
      // Wait (bounded) until the journal shows settleFirst steps settled: downloaded or failed.
      const counter = journalCounter(journal);
      let settled = 0;
      let lastProgress = performance.now();
      while (settled < settleFirst) {
        await sleep(100);
        if (gone)
          throw new Error(
            `the runner exited (${gone.code ?? gone.exitSignal}) before ${settleFirst} settled:\n${tail.join('\n')}`,
          );
        const now = counter();
        if (now > settled) lastProgress = performance.now();
        settled = now;
        const limit = settled === 0 ? START_TIMEOUT_MS : STALL_TIMEOUT_MS;
        if (performance.now() - lastProgress > limit)
          throw new Error(`no step settled for ${limit / 1000} s (${settled} so far):\n${tail.join('\n')}`);
      }
      sample();
      if (pid === undefined) throw new Error('could not find the runner process under GNU time');
      const rssAtSignalMB = currentKB / 1024;
      const signalAt = performance.now();
      const signalEpoch = Date.now();
      process.kill(pid, signal);
      const timeout = sleep(EXIT_TIMEOUT_MS).then(() => undefined);
      const end = await Promise.race([exited, timeout]);
      if (!end) {
        process.kill(pid, 'SIGKILL');
        await exited;
      }
      const result = end ?? (await exited);
      await Promise.race([closed, sleep(5000)]);
      keep?.end();
      if (partial) tail.push(partial);
      // GNU time reports the child's status as its own exit code, and "Command terminated by
      // signal N" when it was killed.
      const stderr = tail.join('\n');
      const killedBy = /Command terminated by signal (\d+)/.exec(stderr);
      const maxRss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (maxRss) peakKB = Math.max(peakKB, Number(maxRss[1]));
      const exitCode = !end ? undefined : killedBy ? undefined : (result.code ?? undefined);
      if (exitCode !== EXPECTED[signal] && process.env.BENCH_VERBOSE) console.error(stderr);
      return {
        settledAtSignal: settled,
        runMs: signalAt - started,
        signalEpoch,
        exitMs: (end ? result.at : performance.now()) - signalAt,
        exitCode,
        exitSignal: !end ? 'SIGKILL after timeout' : killedBy ? `signal ${killedBy[1]}` : result.exitSignal,
        rssMB: peakKB / 1024,
        rssAtSignalMB,
        log,
        manifest: manifestHead(path.join(out, 'interrupt', 'manifest.json')),
        reportBytes: size(path.join(out, 'interrupt', 'report.html')),
      };
    } finally {
      clearInterval(sampler);
      if (!gone) {
        if (pid !== undefined) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        child.kill('SIGKILL');
        await Promise.race([exited, sleep(5000)]);
      }
      children.delete(child);
      if (pid !== undefined) runnerPids.delete(pid);
    }
  } finally {
    await sandbox.stop();
  }
}

/** Counts settled steps in the growing journal, reading only what was added since the last call. */
function journalCounter(file) {
  let offset = 0;
  let count = 0;
  let rest = '';
  const buffer = Buffer.alloc(1 << 20);
  return () => {
    let fd;
    try {
      fd = openSync(file, 'r');
    } catch {
      return count;
    }
    try {
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0) break;
        offset += read;
        const lines = (rest + buffer.toString('utf8', 0, read)).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.includes('"type":"downloaded"') || line.includes('"type":"failed"')) count++;
      }
    } finally {
      closeSync(fd);
    }
    return count;
  };
}

function startSandbox(config) {
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--json', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(5000)]))) child.kill('SIGKILL');
    children.delete(child);
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error('the sandbox did not print its URL within 30 s'));
    }, 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      child.stdout.resume();
      resolve({ baseUrl: JSON.parse(out.slice(0, newline)).base_url, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited with ${code}`));
    });
  });
}

/** GNU time, when it is there and takes -v; else undefined (VmHWM polling instead). */
function gnuTime() {
  if (!existsSync('/usr/bin/time')) return undefined;
  const probe = spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8', timeout: 10_000 });
  return probe.status === 0 && /Maximum resident set size/.test(probe.stderr) ? '/usr/bin/time' : undefined;
}

function childPid(parent) {
  try {
    const [first] = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

function procStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { hwmKB: field('VmHWM'), rssKB: field('VmRSS') };
  } catch {
    return undefined;
  }
}

/** The manifest's size and status, from its first bytes (it can be hundreds of MB). */
function manifestHead(file) {
  const bytes = size(file);
  if (bytes === undefined) return { bytes };
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const status = /"status":\s*"(\w+)"/.exec(buffer.toString('utf8', 0, read))?.[1];
    return { bytes, status };
  } finally {
    closeSync(fd);
  }
}

function size(file) {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
