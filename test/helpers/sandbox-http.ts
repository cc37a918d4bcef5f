/** Calls to a sandbox as the real client makes them, for HTTP-level tests. */
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxStats } from '../../src/sandbox/stats.js';

export const DEMO_KEY = 'sk-sandbox-demo-0000000000000000';
export const FREE_KEY = 'sk-sandbox-free-0000000000000000';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export async function call(
  sandbox: Sandbox,
  path: string,
  body?: unknown,
  options: { key?: string | null; headers?: Record<string, string>; method?: string } = {},
): Promise<Answer> {
  const key = options.key === undefined ? DEMO_KEY : options.key;
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: {
      'content-type': 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...options.headers,
    },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

export async function download(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

export function imageUrl(answer: Answer): string {
  const images = answer.body.images as { url: string }[] | undefined;
  return images?.[0]?.url ?? (answer.body.image_url as string);
}

export type StatsJson = ReturnType<SandboxStats['toJSON']> & { jobs: Record<string, number> };

export async function stats(sandbox: Sandbox): Promise<StatsJson> {
  return (await fetch(`${sandbox.baseUrl}/__sandbox/stats`)).json() as Promise<StatsJson>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
