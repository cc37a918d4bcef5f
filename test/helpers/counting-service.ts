/**
 * A stand-in for the service that only counts what reaches it (and answers 500), for tests of
 * commands that must send nothing (started before the file's tests, stopped after them), and the
 * built CLI run against it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface CountingService {
  /** Requests received so far; set to 0 to count afresh. */
  hits: number;
  readonly baseUrl: string;
}

export function useCountingService(): CountingService {
  const service = { hits: 0, baseUrl: '' };
  const server = createServer((_request, response) => {
    service.hits++;
    response.writeHead(500).end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return service;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

/** The built CLI in a child process, with only PATH and `env` from the environment. */
export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
