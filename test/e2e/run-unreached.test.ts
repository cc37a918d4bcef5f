/**
 * Two runs that cannot do anything, as cron meets them: a base URL nothing answers at, and a key
 * the service refuses. Each says once what happened and what to do, and ends as the contract says.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { startRun, useSandboxProcess, workspace } from '../helpers/e2e-run.js';

useSandboxProcess();

const UNREACHABLE = 'http://127.0.0.1:1';
const WRONG_KEY = 'sk-e2e-not-a-key-of-the-sandbox0';

function manifestOf(dir: string, name: string): Manifest {
  return JSON.parse(readFileSync(path.join(dir, 'out', name, 'manifest.json'), 'utf8')) as Manifest;
}

const times = (text: string, part: string) => text.split(part).length - 1;

describe('a service that cannot be reached', () => {
  it('stops resumably (exit 4), names the base URL once, defers every step', async () => {
    const dir = workspace('unreached', 4);
    const run = await startRun(dir, [], { ASSETLINE_BASE_URL: UNREACHABLE }).done;
    expect(run.code).toBe(4);
    expect(times(run.stderr, `could not reach ${UNREACHABLE} (connection refused)`)).toBe(1);
    expect(run.stderr + run.stdout).not.toContain(WRONG_KEY);
    // The terminal report goes to stderr with the log.
    expect(run.stderr).not.toContain('every request');
    expect(run.stderr).toContain('none: no request reached the service');
    expect(run.stderr).not.toContain('may have been charged twice');
    expect(run.stderr).toContain(`stopped (exit 4): stopped because ${UNREACHABLE} could not be reached`);
    const manifest = manifestOf(dir, 'unreached');
    expect(manifest.status).toBe('stopped');
    expect(manifest.stopped_by).toBe('unreachable');
    expect(manifest.exit_code).toBe(4);
    expect(manifest.totals.requests.sent).toBe(0);
    const steps = manifest.rows.flatMap((row) => row.steps);
    expect(steps.every((step) => step.status === 'deferred')).toBe(true);
    expect(steps.filter((step) => step.reason === 'unreachable').length).toBeGreaterThan(0);
    expect(new Set(steps.map((step) => step.reason))).toEqual(new Set(['unreachable', 'upstream-deferred']));
  });
});

describe('a key the service refuses', () => {
  it('says once that the key was refused and what to do, and exits 5', async () => {
    const dir = workspace('refused', 4);
    const run = await startRun(dir, [], { ASSETLINE_API_KEY: WRONG_KEY }).done;
    expect(run.code).toBe(5);
    expect(times(run.stderr, 'the API key was refused (401)')).toBe(1);
    expect(run.stderr).toContain('check ASSETLINE_API_KEY (exit 5)');
    expect(run.stderr + run.stdout).not.toContain(WRONG_KEY);
    expect(run.stderr).toContain('stopped (exit 5): stopped because the service refused the API key (401)');
    expect(run.stderr).not.toContain('credits, quota, budget or key');
    const manifest = manifestOf(dir, 'refused');
    expect(manifest.stopped_by).toBe('auth');
    expect(manifest.exit_code).toBe(5);
  });
});
