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
  const [{ startSandbox }, { DEFAULT_ACCOUNTS }] = await Promise.all([
    loadSandbox(),
    import('../sandbox/sandbox-config.js'),
  ]);
  const sandbox = await startSandbox();
  return { baseUrl: sandbox.baseUrl, key: new SecretKey(DEFAULT_ACCOUNTS[0]?.key ?? ''), stop: () => sandbox.stop() };
}
