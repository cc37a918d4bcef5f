/**
 * GitHub Actions files read as data (action.yml, merge/action.yml, the example workflows), the
 * help text of assetline's commands as the source prints it now, and one step's script run with
 * bash against a stand-in for the CLI.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { main } from '../../src/cli.js';
import type { CommandIo } from '../../src/cli/io.js';
import { tempDir } from './temp-dir.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  'working-directory'?: string;
  'continue-on-error'?: unknown;
}

export interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description?: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface Job {
  name?: string;
  'runs-on': string;
  needs?: string | string[];
  if?: string;
  'timeout-minutes'?: number;
  strategy?: { 'fail-fast'?: boolean; 'max-parallel'?: number; matrix?: Record<string, unknown[]> };
  env?: Record<string, unknown>;
  steps: Step[];
}

export interface Workflow {
  on: { schedule?: { cron: string }[]; workflow_dispatch?: unknown };
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean };
  permissions?: Record<string, string>;
  env?: Record<string, unknown>;
  jobs: Record<string, Job>;
}

export function readYaml<T>(file: string): T {
  return parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as T;
}

/** The text of every `${{ ... }}` expression anywhere in a parsed file. */
export function expressions(value: unknown): string[] {
  return [...JSON.stringify(value).matchAll(/\$\{\{(.*?)\}\}/g)].map((match) => match[1]!.trim());
}

/** The names X of every `inputs.X` in the expressions of a parsed file. */
export function inputsUsed(value: unknown): Set<string> {
  return new Set(expressions(value).flatMap((text) => [...text.matchAll(/\binputs\.([\w-]+)/g)].map((m) => m[1]!)));
}

/** `owner/repo[/path]@vN`: a published action at a major version. */
export const VERSIONED_ACTION = /^[\w.-]+\/[\w.-]+(\/[\w.-]+)*@v\d+$/;

/** The `--flags` an option list in a command's --help text names. */
export async function helpFlags(argv: readonly string[]): Promise<{ code: number; flags: Set<string> }> {
  let stdout = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: () => {},
    cwd: ROOT,
    env: {},
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  const code = await main(argv, io);
  return { code, flags: new Set([...stdout.matchAll(/^\s+(--[a-z][a-z-]*)/gm)].map((m) => m[1]!)) };
}

/** The flags a script passes to assetline: those in its `args=(...)` and `args+=(...)` lines. */
export function flagsPassed(script: string): string[] {
  return script
    .split('\n')
    .filter((line) => /\bargs\+?=\(/.test(line))
    .flatMap((line) => [...line.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1]!));
}

/**
 * A stand-in for dist/cli.js: records its arguments, its folder and whether the key reached it
 * (never the key), prints a --json summary and exits with FAKE_EXIT.
 */
const FAKE_CLI = `
const fs = require('node:fs');
fs.writeFileSync(process.env.FAKE_RECORD, JSON.stringify({
  args: process.argv.slice(2),
  cwd: process.cwd(),
  key: process.env.ASSETLINE_API_KEY === process.env.FAKE_KEY ? 'given' : process.env.ASSETLINE_API_KEY ? 'other' : 'none',
  baseUrl: process.env.ASSETLINE_BASE_URL ?? null,
  inputKeyLeft: 'INPUT_API_KEY' in process.env,
}));
console.log(JSON.stringify({ status: 'fake', exit_code: Number(process.env.FAKE_EXIT ?? 0) }));
process.exit(Number(process.env.FAKE_EXIT ?? 0));
`;

export interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  /** What the stand-in CLI was given; undefined when it was not run. */
  cli?: FakeCliCall;
}

export interface FakeCliCall {
  args: string[];
  cwd: string;
  key: string;
  baseUrl: string | null;
  inputKeyLeft: boolean;
}

/**
 * Runs a composite step's script as the runner does (`bash -e -o pipefail`), with its `env:`
 * given as values in place of its expressions, in `cwd`, against the stand-in CLI.
 */
export function runStep(step: Step, env: Record<string, string>, cwd: string): StepRun {
  const dir = tempDir();
  const cli = path.join(dir, 'cli.cjs');
  const record = path.join(dir, 'record.json');
  const outputFile = path.join(dir, 'output.txt');
  fs.writeFileSync(cli, FAKE_CLI);
  fs.writeFileSync(outputFile, '');
  const result = spawnSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run ?? ''], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GITHUB_OUTPUT: outputFile,
      ASSETLINE_CLI: cli,
      FAKE_RECORD: record,
      ...env,
    },
  });
  const outputs = readOutputs(outputFile);
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    outputs,
    ...(fs.existsSync(record) && { cli: JSON.parse(fs.readFileSync(record, 'utf8')) as FakeCliCall }),
  };
}

/** scripts/action-prepare.mjs run with INPUT_* variables, as action.yml runs it. */
export function prepare(inputs: Record<string, string>, workspace = ROOT): StepRun {
  const outputFile = path.join(tempDir(), 'output.txt');
  fs.writeFileSync(outputFile, '');
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: '/runner/temp',
    INPUT_CACHE: 'true',
    INPUT_FAIL_ON_DEFERRED: 'auto',
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replaceAll('-', '_')}`] = value;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/action-prepare.mjs')], {
    cwd: workspace,
    encoding: 'utf8',
    env,
  });
  const outputs = readOutputs(outputFile);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, outputs };
}

/** The `name=value` lines a step appended to $GITHUB_OUTPUT. */
function readOutputs(file: string): Record<string, string> {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** download-artifact's `pattern:` (minimatch, over names without slashes) as a RegExp. */
export function artifactPattern(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '[^/]*')
    .replaceAll('?', '[^/]');
  return new RegExp(`^${body}$`);
}
