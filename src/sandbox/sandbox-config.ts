/**
 * The sandbox's configuration: its accounts (keys, plans, credits), video timing, retention, the
 * seed, and the fault layer. From a YAML or JSON file (`assetline sandbox --config F`), from code
 * (tests), or the defaults below.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { PLANS } from '../catalog/limits.js';

const rate = z.number().min(0).max(1);

export const faultConfigSchema = z.strictObject({
  latency_ms: z
    .union([z.number().min(0), z.tuple([z.number().min(0), z.number().min(0)])])
    .optional()
    .describe('Delay before each API answer: fixed, or [min, max] drawn per request.'),
  error_rate: rate.optional().describe('Share of API requests answered 500, 502 or 503 (before any work).'),
  reset_before_rate: rate.optional().describe('Share of requests whose connection is reset before any work.'),
  reset_after_rate: rate
    .optional()
    .describe('Share of requests whose connection is reset after the work (and the charge).'),
  stall_rate: rate.optional().describe('Share of requests that get no answer for stall_ms, then a reset.'),
  stall_ms: z.number().min(0).optional(),
  poll_throttle_rate: rate.optional().describe('Share of video status polls answered 429 with a short Retry-After.'),
  poll_min_interval_ms: z.number().min(0).optional().describe('Polls of one job closer than this are answered 429.'),
  video_error_rate: rate.optional().describe('Share of video jobs that end in error.'),
  expired_url_rate: rate.optional().describe('Share of result downloads answered 410 as if expired.'),
});

export const accountConfigSchema = z.strictObject({
  key: z.string().min(8),
  name: z.string().min(1),
  plan: z.enum(PLANS),
  credits: z.number().int().min(0),
  quota: z.number().int().positive().optional().describe('Requests per 24 h; required for enterprise.'),
  revoked: z.boolean().optional(),
});

export const sandboxConfigSchema = z.strictObject({
  seed: z.number().int().optional().describe('Makes request ids, file ids and fault draws repeatable.'),
  keys: z.array(accountConfigSchema).min(1).optional(),
  video: z
    .strictObject({
      duration_ms: z.number().min(0).optional().describe('How long a video job takes. Default 3000.'),
      pending_share: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('Part of that spent pending before processing. Default 0.3.'),
    })
    .optional(),
  retention_hours: z.number().positive().optional().describe('How long result URLs answer. Default 24.'),
  media: z
    .enum(['real', 'placeholder'])
    .optional()
    .describe(
      'real (default): files made from each request. placeholder: one tiny valid file per kind, for benchmarks.',
    ),
  faults: faultConfigSchema.optional(),
});

export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;
export type FaultConfig = z.infer<typeof faultConfigSchema>;
export type AccountConfig = z.infer<typeof accountConfigSchema>;

/** The accounts a fresh sandbox has: what `assetline sandbox` prints and `run --sandbox` uses. */
export const DEFAULT_ACCOUNTS: readonly AccountConfig[] = [
  { key: 'sk-sandbox-demo-0000000000000000', name: 'demo', plan: 'pro', credits: 100_000 },
  { key: 'sk-sandbox-free-0000000000000000', name: 'free', plan: 'free', credits: 1_000 },
  {
    key: 'sk-sandbox-enterprise-00000000000',
    name: 'enterprise',
    plan: 'enterprise',
    quota: 1_000_000,
    credits: 100_000_000,
  },
];

export const DEFAULT_VIDEO_MS = 3000;

export async function loadSandboxConfig(file: string): Promise<SandboxConfig> {
  const text = await readFile(file, 'utf8');
  const data: unknown = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  const parsed = sandboxConfigSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`);
    throw new Error(`${file}: ${problems.join('; ')}`);
  }
  return parsed.data;
}
