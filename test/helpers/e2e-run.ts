/**
 * `assetline run` end to end, as cron runs it: the built CLI in child processes against a sandbox
 * in its own process. What the e2e run tests share; each file starts its own sandbox, so the files
 * run side by side.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './temp-dir.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist/cli.js');
export const KEY = 'sk-e2e-run-key-00000000000';

let sandbox: ChildProcess;
let baseUrl = '';

/**
 * A sandbox in its own process for the test file (so its counters outlive every runner it
 * serves): started before the file's tests, stopped after them.
 */
export function useSandboxProcess(): void {
  beforeAll(startSandboxProcess);
  afterAll(() => {
    sandbox.kill('SIGTERM');
  });
}

async function startSandboxProcess(): Promise<void> {
  const config = path.join(tempDir(), 'sandbox.yaml');
  writeFileSync(
    config,
    `seed: 7\nkeys:\n  - { key: ${KEY}, name: e2e, plan: enterprise, quota: 100000, credits: 10000000 }\nvideo: { duration_ms: 600 }\nfaults: { latency_ms: [40, 120] }\n`,
  );
  sandbox = spawn(process.execPath, [CLI, 'sandbox', '--json', '--config', config]);
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    sandbox.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve((JSON.parse(out.slice(0, out.indexOf('\n'))) as { base_url: string }).base_url);
    });
    sandbox.on('exit', () => reject(new Error('sandbox exited')));
  });
}

export const PIPELINE = (name: string, rows: number) => `version: 1
name: ${name}
api:
  plan: enterprise
  quota: 100000
  video: { poll_interval_seconds: 0.1, expected_seconds: 1, timeout_seconds: 20 }
  retry: { base_seconds: 0.02, cap_seconds: 0.1 }
concurrency: 4
rows:
${Array.from({ length: rows }, (_, i) => `  - { sku: S${i}, name: "Product ${i}" }`).join('\n')}
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "\${{ row.name }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: clip
    video: { model: beta-v2.5-turbo-pro-i2v, image: "\${{ steps.hero.output }}", prompt: "orbit", duration: 5 }
  - id: voice
    tts: { text: "Meet \${{ row.name }}" }
`;
// Per row: 100 + 100 + 1,500 + 10 = 1,710 credits.

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** `env` overrides the sandbox's base URL and key (an unreachable service, a refused key). */
export function startRun(
  dir: string,
  args: string[] = [],
  env: Readonly<Record<string, string>> = {},
): { child: ChildProcess; done: Promise<Finished> } {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, 'run', 'pipeline.yaml', '--out', 'out', '--state-dir', 'state', ...args],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ASSETLINE_BASE_URL: baseUrl, ASSETLINE_API_KEY: KEY, ...env },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Finished>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started })),
  );
  return { child, done };
}

export async function sandboxStats(): Promise<{
  charges: { by_idempotency_key: Record<string, number>; without_idempotency_key: number };
}> {
  return (await fetch(`${baseUrl}/__sandbox/stats`)).json() as never;
}

export function report(dir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, 'report', ...args], { cwd: dir, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function workspace(name: string, rows: number): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'pipeline.yaml'), PIPELINE(name, rows));
  return dir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The journal records of the latest run (after its `run` record), by type. */
export function journalOfLatestRun(dir: string, name: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(dir, 'out', name, 'journal.jsonl');
  if (!existsSync(file)) return counts;
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const start = lines.findLastIndex((line) => line.includes('"type":"run"'));
  if (start < 0) return counts;
  for (const line of lines.slice(start + 1)) {
    const type = /"type":"(\w+)"/.exec(line)?.[1];
    if (type) counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

/** Wait (bounded) until `ready` holds: something the test can observe, never a fixed time. */
export async function until(ready: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
