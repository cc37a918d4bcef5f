/**
 * The sandbox a `--sandbox` run starts for itself, loaded only then: it brings sharp and libvips,
 * which a run against the service does not need in its memory.
 */
import { SecretKey } from '../api/secret-key.js';
import { loadSandbox } from '../sandbox-loader.js';

export interface EmbeddedSandbox {
  readonly baseUrl: string;
  /** The sandbox's first account: the key a `--sandbox` run uses. */
  readonly key: SecretKey;
  stop(): Promise<void>;
}

export async function startEmbeddedSandbox(): Promise<EmbeddedSandbox> {
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox();
  // Its first account: the demo one of its default configuration.
  const key = new SecretKey(sandbox.accounts.all()[0]?.key ?? '');
  return { baseUrl: sandbox.baseUrl, key, stop: () => sandbox.stop() };
}
