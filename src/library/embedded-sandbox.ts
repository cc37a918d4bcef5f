/**
 * The sandbox a `--sandbox` run starts for itself, loaded only then: it brings sharp and libvips,
 * which a run against the service does not need in its memory. It keeps its state in the run's
 * state folder (`<state-dir>/sandbox/`), as the service keeps its own: a run interrupted against
 * one embedded sandbox resumes against the next, which knows the answers, jobs, charges and files
 * of the earlier one (docs/sandbox.md, "The embedded sandbox keeps its state").
 */
import path from 'node:path';
import type { OriginRoute } from '../api/origin-route.js';
import { SecretKey } from '../api/secret-key.js';
import { loadSandbox } from '../sandbox-loader.js';

export interface EmbeddedSandbox {
  /** The origin of its URLs: the same run after run for one state folder. */
  readonly baseUrl: string;
  /** That origin and where the sandbox listens this time: what the run's client connects to. */
  readonly route: OriginRoute;
  /** The sandbox's first account: the key a `--sandbox` run uses. */
  readonly key: SecretKey;
  stop(): Promise<void>;
}

/** The sandbox's folder inside a run's state folder. */
export function sandboxStateDir(stateDir: string): string {
  return path.join(stateDir, 'sandbox');
}

export async function startEmbeddedSandbox(stateDir: string): Promise<EmbeddedSandbox> {
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ stateDir: sandboxStateDir(stateDir) });
  // Its first account: the demo one of its default configuration.
  const key = new SecretKey(sandbox.accounts.all()[0]?.key ?? '');
  return {
    baseUrl: sandbox.baseUrl,
    route: { origin: sandbox.baseUrl, address: sandbox.address },
    key,
    stop: () => sandbox.stop(),
  };
}
