/**
 * `assetline run` as cron runs it, against a sandbox in its own process (so the sandbox's
 * counters outlive every runner): runs killed with SIGKILL at several moments and resumed never
 * pay twice for one idempotency key; SIGTERM flushes and exits 143 within 7 s; a second run on
 * the same folder is refused with the holder's PID; `--sandbox` runs the demo with real files.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertPublishedManifestFile } from '../helpers/manifest-validator.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const KEY = 'sk-e2e-run-key-00000000000';

let sandbox: ChildProcess;
let baseUrl = '';

beforeAll(async () => {
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
});
afterAll(() => {
  sandbox.kill('SIGTERM');
});

const PIPELINE = (name: string, rows: number) => `version: 1
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

function startRun(dir: string, args: string[] = []): { child: ChildProcess; done: Promise<Finished> } {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, 'run', 'pipeline.yaml', '--out', 'out', '--state-dir', 'state', ...args],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ASSETLINE_BASE_URL: baseUrl, ASSETLINE_API_KEY: KEY },
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

async function sandboxStats(): Promise<{
  charges: { by_idempotency_key: Record<string, number>; without_idempotency_key: number };
}> {
  return (await fetch(`${baseUrl}/__sandbox/stats`)).json() as never;
}

function report(dir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, 'report', ...args], { cwd: dir, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function workspace(name: string, rows: number): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'pipeline.yaml'), PIPELINE(name, rows));
  return dir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The journal records of the latest run (after its `run` record), by type. */
function journalOfLatestRun(dir: string, name: string): Map<string, number> {
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
async function until(ready: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('assetline run', () => {
  it('resumed after SIGKILL at several moments, pays once for every idempotency key', async () => {
    const dir = workspace('killed', 8);
    // Killed right after these journal records of the run: its first intent, a video job
    // submitted (before its first poll), three answers (before their downloads), four downloads.
    const moments: [string, number][] = [
      ['intent', 1],
      ['submitted', 1],
      ['answered', 3],
      ['downloaded', 4],
    ];
    for (const [type, count] of moments) {
      const { child, done } = startRun(dir);
      await until(() => (journalOfLatestRun(dir, 'killed').get(type) ?? 0) >= count, `${count} ${type}`);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
    }
    const last = await startRun(dir, ['--json']).done;
    expect(last.code, last.stderr).toBe(0);
    const summary = JSON.parse(last.stdout) as { status: string; steps: Record<string, number> };
    expect(summary.status).toBe('complete');
    expect((summary.steps.done ?? 0) + (summary.steps.cached ?? 0)).toBe(32);
    for (let i = 0; i < 8; i++) {
      for (const file of ['hero.png', 'big.png', 'clip.mp4', 'voice.mp3'])
        expect(existsSync(path.join(dir, 'out/killed', `S${i}`, file))).toBe(true);
    }
    const stats = await sandboxStats();
    const keys = Object.entries(stats.charges.by_idempotency_key).filter(([key]) => key.startsWith('al-'));
    expect(keys.length).toBeGreaterThanOrEqual(32);
    expect(keys.filter(([, charges]) => charges > 1)).toEqual([]);
  });

  it('on SIGTERM stops, flushes the manifest, exits 143, and resumes', async () => {
    // How fast it exits is measured by bench/interrupt.mjs, not judged here by the clock.
    const dir = workspace('terminated', 12);
    const { child, done } = startRun(dir);
    await until(() => (journalOfLatestRun(dir, 'terminated').get('answered') ?? 0) >= 2, 'two answers');
    child.kill('SIGTERM');
    const finished = await done;
    expect(finished.code).toBe(143);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'out/terminated/manifest.json'), 'utf8')) as {
      status: string;
      stopped_by: string;
    };
    expect(manifest).toMatchObject({ status: 'interrupted', stopped_by: 'interrupted' });
    const resumed = await startRun(dir).done;
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('a run killed with SIGKILL is reported from its manifest and journal, or from the journal alone', async () => {
    const dir = workspace('reported', 6);
    const { child, done } = startRun(dir);
    // Killed once a manifest says "running" and the journal holds a download the manifest may not.
    await until(
      () =>
        existsSync(path.join(dir, 'out/reported/manifest.json')) &&
        (journalOfLatestRun(dir, 'reported').get('downloaded') ?? 0) >= 2,
      'a running manifest and two downloads',
    );
    child.kill('SIGKILL');
    await done;
    const out = path.join(dir, 'out/reported');
    const left = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { status: string };
    expect(left.status).toBe('running');
    assertPublishedManifestFile(path.join(out, 'manifest.json'));
    const downloaded = new Set(
      readFileSync(path.join(out, 'journal.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"type":"downloaded"'))
        .map((line) => (JSON.parse(line) as { key: string }).key),
    );

    const text = report(dir, 'out/reported');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('reported: interrupted: interrupted; the next run resumes where it stopped');
    expect(text.stdout).toContain('The run stopped without finishing its manifest (killed or crashed)');
    expect(text.stdout).toMatch(new RegExp(`steps: +${downloaded.size} done, 0 cached`));
    expect(report(dir, 'out/reported', '--md').stdout).toMatch(/^## assetline: reported: interrupted\n/);
    const html = report(dir, 'out/reported', '--html');
    expect(html.stdout).toBe(`${path.join('out', 'reported', 'report.html')}\n`);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('<section id="gallery">');

    rmSync(path.join(out, 'manifest.json'));
    const rebuilt = report(dir, 'out/reported');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toContain('rebuilt from its journal');
    expect(rebuilt.stdout).toMatch(new RegExp(`steps: +${downloaded.size} done, 0 cached`));

    const resumed = await startRun(dir, ['--json']).done;
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'complete' });
    expect(report(dir, 'out/reported').stdout).toContain('reported: complete (exit 0): every step is done');
  });

  it('refuses a second run on the same folder (exit 2), naming the first', async () => {
    const dir = workspace('locked', 10);
    const first = startRun(dir);
    await until(() => existsSync(path.join(dir, 'out/locked/.lock')), 'the first run to take the lock');
    const second = await startRun(dir).done;
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another run is using .*: process \d+ on .*, started /);
    expect((await first.done).code).toBe(0);
  });

  it('--sandbox runs the demo and leaves real files, without any key set', async () => {
    const dir = tempDir();
    const demo = readFileSync(path.join(ROOT, 'pipelines/demo.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'pipeline.yaml'), demo);
    const child = spawn(process.execPath, [CLI, 'run', 'pipeline.yaml', '--sandbox', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'complete',
      exit_code: 0,
      credits_used: 2610,
      steps: { done: 6 },
    });
    for (const file of ['hero.png', 'hero-2.png', 'recolor.png', 'big.png', 'cutout.png', 'teaser.mp4', 'voice.mp3']) {
      expect(existsSync(path.join(dir, 'out/demo/DEMO-1', file))).toBe(true);
    }
  });

  it('never falls back to the sandbox: without a key or base URL it says what to set (exit 2)', async () => {
    const dir = workspace('nokey', 1);
    const child = spawn(process.execPath, [CLI, 'run', 'pipeline.yaml'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(2);
    expect(stderr).toContain('set ASSETLINE_BASE_URL');
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
