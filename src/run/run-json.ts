/** The contract's `run --json` object (keep the names; fields may be added). */
import { newStepCounts } from '../manifest/manifest-totals.js';
import type { RunResult } from './run-pipeline.js';

export function runJson(result: RunResult) {
  const manifest = result.summary?.manifest;
  return {
    status: manifest?.status ?? ('refused' as const),
    exit_code: result.exitCode,
    credits_used: manifest?.totals.credits.used ?? 0,
    requests_sent: manifest?.totals.requests.sent ?? 0,
    steps: manifest ? manifest.totals.steps : newStepCounts(),
    manifest: result.manifestPath ?? null,
    ...(!manifest && { reasons: result.plan.reasons }),
  };
}

export type RunJson = ReturnType<typeof runJson>;
