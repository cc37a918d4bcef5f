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

export function resolveConnection(
  env: Readonly<Record<string, string | undefined>>,
  pipelineBaseUrl: string | undefined,
): Connection {
  const baseUrl = env.ASSETLINE_BASE_URL?.trim() || pipelineBaseUrl;
  const key = env.ASSETLINE_API_KEY?.trim();
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
