/** In-process sandboxes for a test file: started on port 0 with a seed, stopped after each test. */
import { afterEach } from 'vitest';
import type { SandboxConfig } from '../../src/sandbox/sandbox-config.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';

export function sandboxesFor(defaults: SandboxConfig = {}): (config?: SandboxConfig) => Promise<Sandbox> {
  const started: Sandbox[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
  });
  return async (config = {}) => {
    const sandbox = await startSandbox({ config: { seed: 1, ...defaults, ...config } });
    started.push(sandbox);
    return sandbox;
  };
}
