/**
 * `assetline run --sandbox` interrupted and run again, the built CLI in child processes: the
 * embedded sandbox keeps its state in .assetline/sandbox/, so the resumed run downloads the
 * answers the killed one received, polls the video jobs it submitted, and exits 0, every time.
 * Each interruption is made at a moment the journal shows (never after a fixed time), on a fresh
 * folder; what the sandbox charged is read from its saved state afterwards: each step once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { CLI, ROOT, until } from '../helpers/e2e-run.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROWS = 3;
const PIPELINE = (name: string, steps = 'all') => `version: 1
name: ${name}
budget: { max_credits: 20000 }
api:
  plan: pro
  video: { poll_interval_seconds: 0.1, expected_seconds: 3, timeout_seconds: 60 }
  retry: { base_seconds: 0.02, cap_seconds: 0.1 }
concurrency: 4
rows:
${Array.from({ length: ROWS }, (_, i) => `  - { sku: R${i}, name: "Product ${i}" }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "\${{ row.name }} by ${name}", width: 256, height: 256 }
  - id: voice
    tts: { text: "Meet \${{ row.name }}" }
${
  steps === 'all'
    ? `  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: clip
    video: { model: beta-v2.5-turbo-pro-i2v, image: "\${{ steps.hero.output }}", prompt: orbit, duration: 5 }
`
    : ''
}`;
// Per row: z-image-turbo 100 + tts-alpha 10 + upscale 100 + beta-v2.5-turbo-pro-i2v 1,500 = 1,710.
const FILES = ['hero.png', 'voice.mp3', 'big.png', 'clip.mp4'];

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `assetline run <file> --sandbox` in `dir`, with no key nor service in its environment. */
function runSandbox(dir: string, file: string, args: string[] = []): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [CLI, 'run', file, '--sandbox', '--log-level', 'warn', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Finished>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/**
 * Records of one type in the journal after the `run` record of a run started at `since` or later:
 * until the new run writes its own, the latest is the run before it.
 */
function recordsOfRunSince(dir: string, name: string, type: string, since: number): number {
  const file = path.join(dir, 'out', name, 'journal.jsonl');
  if (!existsSync(file)) return 0;
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.findLastIndex((line) => line.includes('"type":"run"'));
  if (start < 0 || (JSON.parse(lines[start] as string) as { t: number }).t < since) return 0;
  return lines.slice(start + 1).filter((line) => line.includes(`"type":"${type}"`)).length;
}

/** Start a run, interrupt it once the journal holds `count` records of `type`, and wait for it to end. */
async function interrupt(
  dir: string,
  name: string,
  type: string,
  count: number,
  signal: 'SIGKILL' | 'SIGINT',
): Promise<Finished> {
  const since = Date.now();
  const { child, done } = runSandbox(dir, `${name}.yaml`);
  let exited = false;
  void done.then(() => (exited = true));
  await until(
    () => exited || recordsOfRunSince(dir, name, type, since) >= count,
    `${count} ${type} of ${name}`,
    60_000,
  );
  // The moment must have come while the run was still running, or the test proves nothing.
  expect(exited, `${name} finished before ${count} ${type}`).toBe(false);
  child.kill(signal);
  const finished = await done;
  if (signal === 'SIGKILL') expect(finished.signal).toBe('SIGKILL');
  else expect(finished.code, finished.stderr).toBe(130);
  return finished;
}

async function resumedToTheEnd(dir: string, name: string, steps: number): Promise<void> {
  const last = await runSandbox(dir, `${name}.yaml`, ['--json']).done;
  expect(last.code, last.stderr).toBe(0);
  const summary = JSON.parse(last.stdout) as { status: string; steps: Record<string, number> };
  expect(summary.status).toBe('complete');
  expect((summary.steps.done ?? 0) + (summary.steps.cached ?? 0)).toBe(steps);
}

/** What the embedded sandbox charged over every run, from the state it saved. */
async function savedCharges(dir: string) {
  const sandbox = await startSandbox({ stateDir: path.join(dir, '.assetline/sandbox') });
  try {
    return { ...sandbox.stats.toJSON().charges, balance: sandbox.accounts.all()[0]?.credits };
  } finally {
    await sandbox.stop();
  }
}

function workspace(...names: string[]): string {
  const dir = tempDir();
  for (const name of names) writeFileSync(path.join(dir, `${name}.yaml`), PIPELINE(name));
  return dir;
}

describe('assetline run --sandbox, interrupted and run again', () => {
  it.each([
    ['SIGKILL', 'after its first answer, before the download', 'answered'],
    ['SIGKILL', 'while a video job is pending', 'submitted'],
    ['SIGINT', 'while a video job is pending', 'submitted'],
  ] as const)(
    '%s %s: resumes to exit 0, every file there, each step charged once',
    async (signal, _when, type) => {
      const dir = workspace('shoot');
      await interrupt(dir, 'shoot', type, 1, signal);
      await resumedToTheEnd(dir, 'shoot', ROWS * 4);
      for (let i = 0; i < ROWS; i++)
        for (const file of FILES) expect(existsSync(path.join(dir, 'out/shoot', `R${i}`, file)), file).toBe(true);
      const charges = await savedCharges(dir);
      expect(Object.values(charges.by_idempotency_key)).toEqual(Array(ROWS * 4).fill(1));
      expect(charges).toMatchObject({ count: ROWS * 4, credits: ROWS * 1710, balance: 100_000 - ROWS * 1710 });
    },
    120_000,
  );

  it('killed at its first download, then interrupted at its next first answer: the third run finishes', async () => {
    const dir = workspace('twice');
    await interrupt(dir, 'twice', 'downloaded', 1, 'SIGKILL');
    await interrupt(dir, 'twice', 'answered', 1, 'SIGINT');
    await resumedToTheEnd(dir, 'twice', ROWS * 4);
    const charges = await savedCharges(dir);
    expect(Object.values(charges.by_idempotency_key)).toEqual(Array(ROWS * 4).fill(1));
    expect(charges.count).toBe(ROWS * 4);
  }, 120_000);

  it('two pipelines at once on one state folder, one of them killed: both finish, nothing charged twice', async () => {
    const dir = tempDir();
    for (const name of ['left', 'right']) writeFileSync(path.join(dir, `${name}.yaml`), PIPELINE(name, 'images'));
    const right = runSandbox(dir, 'right.yaml');
    await interrupt(dir, 'left', 'answered', 1, 'SIGKILL');
    expect((await right.done).code).toBe(0);
    await resumedToTheEnd(dir, 'left', ROWS * 2);
    const charges = await savedCharges(dir);
    expect(Object.values(charges.by_idempotency_key)).toEqual(Array(ROWS * 2 * 2).fill(1));
    expect(charges).toMatchObject({ count: ROWS * 4, credits: ROWS * 2 * 110 });
  }, 120_000);

  it('the bug report: pipelines/product-shoot.yaml interrupted at its first answers, run again, exits 0', async () => {
    const dir = tempDir();
    for (const file of ['product-shoot.yaml', 'products.csv'])
      copyFileSync(path.join(ROOT, 'pipelines', file), path.join(dir, file));
    await interrupt(dir, 'product-shoot', 'answered', 3, 'SIGINT');
    const last = await runSandbox(dir, 'product-shoot.yaml', ['--json']).done;
    expect(last.code, last.stderr).toBe(0);
    const steps = (JSON.parse(last.stdout) as { steps: { done: number; cached: number } }).steps;
    expect(steps.done + steps.cached).toBe(72);
    const charges = await savedCharges(dir);
    expect(charges.count).toBe(72);
    expect(Object.values(charges.by_idempotency_key).every((n) => n === 1)).toBe(true);
  }, 180_000);
});
