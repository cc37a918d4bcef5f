/**
 * A client wired for unit tests: msw stands in for the service (it replaces the global fetch the
 * client sends through), waits are recorded, not slept.
 */
import { setupServer } from 'msw/node';
import { ApiClient, type ClientOptions } from '../../src/api/api-client.js';
import type { ClientEvents } from '../../src/api/client-events.js';
import type { RetryEnvironment } from '../../src/api/retry.js';
import { SecretKey } from '../../src/api/secret-key.js';
import { type ResolvedApi } from '../../src/pipeline/checked-pipeline.js';

export const BASE = 'https://api.media.test';
export const KEY = 'sk-live-UNIT-TEST-KEY-4f9a2c77';

export function resolvedApi(
  overrides: Partial<ResolvedApi['video']> = {},
  extra: Partial<ResolvedApi> = {},
): ResolvedApi {
  return {
    plan: 'pro',
    dailyQuota: 1000,
    quotaPerShard: undefined,
    baseUrl: undefined,
    video: {
      statusMethod: 'POST',
      statusPath: '/v1/video/status',
      fieldNames: { aspect_ratio: 'aspect_ratio', duration: 'duration' },
      pollIntervalSeconds: 5,
      pollIntervalMaxSeconds: 5,
      expectedSeconds: 120,
      timeoutSeconds: 300,
      onTimeout: 'resubmit',
      ...overrides,
    },
    retry: { baseSeconds: 1, capSeconds: 30 },
    responsePaths: {},
    ...extra,
  };
}

export interface Recorded {
  readonly sleeps: number[];
  readonly events: { type: string; event: unknown }[];
}

export function testClient(options: Partial<ClientOptions> = {}): { client: ApiClient; recorded: Recorded } {
  const recorded: Recorded = { sleeps: [], events: [] };
  const environment: RetryEnvironment = {
    sleep: async (ms) => {
      recorded.sleeps.push(ms);
    },
    random: () => 0.5,
    now: () => Date.parse('2026-11-22T10:00:00Z'),
  };
  const events: ClientEvents = {
    requestSent: (event) => recorded.events.push({ type: 'sent', event }),
    ambiguous: (event) => recorded.events.push({ type: 'ambiguous', event }),
    retry: (event) => recorded.events.push({ type: 'retry', event }),
  };
  const client = new ApiClient({
    baseUrl: BASE,
    key: new SecretKey(KEY),
    api: resolvedApi(),
    connections: 4,
    environment,
    events,
    ...options,
  });
  return { client, recorded };
}

export const mockService = setupServer();
