/**
 * `assetline sandbox [--port N] [--config F] [--seed N] [--json]`: the local emulator of the API,
 * on loopback. Prints its base URL and the keys it accepts (with --json, one JSON object on the
 * first line), then serves until SIGINT or SIGTERM.
 */
import path from 'node:path';
import type { CommandIo } from '../cli/io.js';
import { parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { loadSandboxConfig, type SandboxConfig } from '../sandbox/sandbox-config.js';
import { loadSandbox } from '../sandbox-loader.js';

const HELP = `Usage: assetline sandbox [--port N] [--config F] [--seed N] [--json]

Starts the local emulator of the Creative Media Generation API on 127.0.0.1 and prints its base
URL and the API keys it accepts. Serves until Ctrl-C (SIGINT) or SIGTERM.

Options:
  --port N     port to listen on; 0 (default) picks a free one
  --config F   accounts, video timing and faults (YAML or JSON; see docs/sandbox.md)
  --seed N     repeatable ids and fault draws
  --json       print {"base_url", "keys": [{"key", "plan", "credits"}]} as the first line`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs('sandbox', {
    args: [...args],
    options: {
      port: { type: 'string', default: '0' },
      config: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`sandbox: --port expects 0 to 65535, got "${values.port}"`);
  let config: SandboxConfig = {};
  if (values.config) {
    try {
      config = await loadSandboxConfig(path.resolve(io.cwd, values.config));
    } catch (error) {
      throw new UsageError(`sandbox: --config: ${(error as Error).message}`);
    }
  }
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(values.seed))
      throw new UsageError(`sandbox: --seed expects a whole number, got "${values.seed}"`);
    config = { ...config, seed: Number(values.seed) };
  }

  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port, config });
  const keys = sandbox.accounts.all().map((account) => ({
    key: account.key,
    name: account.name,
    plan: account.plan,
    credits: account.credits,
    quota: account.limit,
  }));
  if (values.json) {
    io.stdout(`${JSON.stringify({ base_url: sandbox.baseUrl, keys })}\n`);
  } else {
    io.stdout(`assetline sandbox listening on ${sandbox.baseUrl}\n\nAPI keys:\n`);
    for (const key of keys)
      io.stdout(
        `  ${key.key}  ${key.name}: ${key.plan} plan, ${key.quota.toLocaleString('en-US')} requests per 24 h, ${key.credits.toLocaleString('en-US')} credits\n`,
      );
    io.stdout(
      `\nTry: ASSETLINE_BASE_URL=${sandbox.baseUrl} ASSETLINE_API_KEY=${keys[0]?.key ?? ''} assetline plan pipelines/demo.yaml\nStop with Ctrl-C.\n`,
    );
  }

  const signal = await new Promise<string>((resolve) => {
    if (io.signal.aborted) resolve(String(io.signal.reason));
    io.signal.addEventListener('abort', () => resolve(String(io.signal.reason)), { once: true });
  });
  await sandbox.stop();
  return signal === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}
