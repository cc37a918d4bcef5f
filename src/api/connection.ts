/**
 * Where the service is and which key to use, resolved once at the edge: ASSETLINE_BASE_URL (the
 * pipeline's api.base_url as the fallback) and ASSETLINE_API_KEY. Without them a run against the
 * real service is a usage error that says what to set; it never falls back to the sandbox.
 */
import { UsageError } from '../errors.js';
import { keyHeaderProblem, SecretKey } from './secret-key.js';

export interface Connection {
  readonly baseUrl: string;
  readonly key: SecretKey;
}

/**
 * ASSETLINE_API_KEY as it is used: trimmed, once, here (a CI secret pasted with a trailing line
 * break is common), so `plan` and `run` name the same key and read the same ledger.
 */
function keyText(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env.ASSETLINE_API_KEY?.trim() || undefined;
}

/** The key from the environment, when one is set: what `plan` reads the ledger with. */
export function keyFromEnv(env: Readonly<Record<string, string | undefined>>): SecretKey | undefined {
  const key = keyText(env);
  return key === undefined ? undefined : new SecretKey(key);
}

export function resolveConnection(
  env: Readonly<Record<string, string | undefined>>,
  pipelineBaseUrl: string | undefined,
): Connection {
  const baseUrl = env.ASSETLINE_BASE_URL?.trim() || pipelineBaseUrl;
  const key = keyText(env);
  const missing = [
    !baseUrl && 'ASSETLINE_BASE_URL (or api.base_url in the pipeline)',
    !key && 'ASSETLINE_API_KEY',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new UsageError(
      `set ${missing.join(' and ')} to reach the service, or use --sandbox to run against the local emulator`,
    );
  }
  if (!URL.canParse(baseUrl as string) || !/^https?:$/.test(new URL(baseUrl as string).protocol)) {
    throw new UsageError(`ASSETLINE_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  }
  const problem = keyHeaderProblem(key as string);
  if (problem) {
    throw new UsageError(
      `ASSETLINE_API_KEY ${problem}, so it cannot be sent as a header; nothing was sent. Check how the secret was stored (a pasted line break is the usual cause)`,
    );
  }
  return { baseUrl: baseUrl as string, key: new SecretKey(key as string) };
}
