/** `assetline sandbox`, spawned: the JSON first line, keys that work, a config file, clean exits on signals. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function startCli(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  firstLine: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'sandbox', ...args], { cwd: ROOT });
  let out = '';
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline !== -1) resolve(out.slice(0, newline));
    });
    child.on('exit', () => reject(new Error(`sandbox exited before printing: ${out}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, firstLine, exit };
}

describe('assetline sandbox', () => {
  it('prints its base URL and keys as JSON on the first line, serves them, and exits 143 on SIGTERM', async () => {
    const { child, firstLine, exit } = startCli(['--json', '--seed', '1']);
    const info = JSON.parse(await firstLine) as {
      base_url: string;
      keys: { key: string; plan: string; credits: number }[];
    };
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.keys).toContainEqual(expect.objectContaining({ plan: 'pro', credits: 100_000 }));
    const response = await fetch(`${info.base_url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.keys[0]?.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(response.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exit).toBe(143);
  });

  it('exits 130 on SIGINT', async () => {
    const { child, firstLine, exit } = startCli(['--json']);
    await firstLine;
    child.kill('SIGINT');
    expect(await exit).toBe(130);
  });

  it('takes its accounts from --config', async () => {
    const config = path.join(tempDir(), 'sandbox.yaml');
    writeFileSync(config, 'keys:\n  - { key: sk-team-key-123456, name: team, plan: free, credits: 42 }\n');
    const { child, firstLine, exit } = startCli(['--json', '--config', config]);
    expect(JSON.parse(await firstLine)).toMatchObject({
      keys: [{ key: 'sk-team-key-123456', plan: 'free', credits: 42 }],
    });
    child.kill('SIGTERM');
    await exit;
  });

  it('refuses a bad config with exit 2 and a message naming the field', async () => {
    const config = path.join(tempDir(), 'sandbox.yaml');
    writeFileSync(config, 'keys:\n  - { key: short, name: x, plan: gold, credits: 1 }\n');
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'sandbox', '--config', config], {
      cwd: ROOT,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('keys.0.key');
    expect(stderr).toContain('keys.0.plan');
  });
});
