#!/usr/bin/env node
/**
 * The assetline command line: finds the command, loads only its module, runs it, and turns errors
 * into the contract's exit codes in this one place.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command, CommandIo } from './cli/io.js';
import { AssetlineError, EXIT, exitCodeOf, UsageError } from './errors.js';

const COMMANDS: Readonly<Record<string, () => Promise<{ run: Command }>>> = {
  validate: () => import('./commands/validate.js'),
  plan: () => import('./commands/plan.js'),
  run: () => import('./commands/run.js'),
  report: () => import('./commands/report.js'),
  merge: () => import('./commands/merge.js'),
  schema: () => import('./commands/schema.js'),
  sandbox: () => import('./commands/sandbox.js'),
};

const USAGE = `Usage: assetline <command> [options]

Commands:
  validate <pipeline.yaml>... [--json]   check pipelines; print every problem as file:line:col
  plan <pipeline.yaml> [--json]          credits, requests and quota; refuse what does not fit
  run <pipeline.yaml> [--sandbox] [...]  plan, then run every step, download, write the manifest
  report <run-dir> [--html|--md]         what a run made and cost, and what needs attention
  merge <dir>... --out DIR               combine the shards of one run into DIR/<pipeline>/
  schema [pipeline|manifest]             print the JSON Schema of pipelines or of manifests
  sandbox [--port N] [--config F]        start the local API emulator; print its URL and keys

Exit codes: 0 ok, 1 steps failed, 2 invalid pipeline or usage, 3 refused by the plan,
4 stopped (resumable), 5 key refused, 70 internal error, 130/143 interrupted.
Run "assetline <command> --help" for a command's options.`;

export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${await version()}\n`);
    return EXIT.ok;
  }
  try {
    const load = COMMANDS[name];
    if (!load) throw new UsageError(`unknown command "${name}"\n\n${USAGE}`);
    const { run } = await load();
    return await run(args, io);
  } catch (error) {
    const exitCode = exitCodeOf(error);
    if (exitCode !== EXIT.internal && error instanceof AssetlineError) {
      io.stderr(`assetline: ${error.message}\n`);
      return exitCode;
    }
    io.stderr(
      `assetline: internal error (a bug; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return exitCode;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // The first SIGINT or SIGTERM asks the command to stop cleanly; a second one, of either kind,
  // ends the process at once (the journal makes that safe), with that signal's exit code.
  const interrupt = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const)
    process.on(name, () => {
      if (interrupt.signal.aborted) process.exit(name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm);
      interrupt.abort(name);
    });
  const io: CommandIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    signal: interrupt.signal,
    stderrIsTTY: process.stderr.isTTY === true,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`assetline: internal error: ${String(error)}\n`);
      process.exitCode = EXIT.internal;
    },
  );
}
