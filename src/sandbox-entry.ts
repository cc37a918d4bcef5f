/**
 * `assetline/sandbox`: the local emulator of the Creative Media Generation API, for tests and
 * benchmarks of code that calls it. A separate entry so that `assetline` itself never loads it.
 */
export { type Sandbox, type SandboxOptions, startSandbox } from './sandbox/sandbox.js';
export type { SandboxConfig } from './sandbox/sandbox-config.js';
