/**
 * `assetline/sandbox`: the local emulator of the Creative Media Generation API, for tests and
 * benchmarks of code that calls it. A separate entry so that `assetline` itself never loads it.
 * Its packages are optional dependencies: `startSandbox` names the one that is missing.
 */
import type { Sandbox, SandboxOptions } from './sandbox/sandbox.js';
import { loadSandbox } from './sandbox-loader.js';

export type { Sandbox, SandboxOptions } from './sandbox/sandbox.js';
export type { SandboxConfig } from './sandbox/sandbox-config.js';
export { SandboxUnavailableError } from './sandbox-loader.js';

/**
 * Starts the sandbox on 127.0.0.1 (port 0 unless `port` is given); `stop()` ends it. In memory,
 * unless `stateDir` is given: then it keeps its state there and resumes from it (docs/sandbox.md).
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = await loadSandbox();
  return sandbox.startSandbox(options);
}
