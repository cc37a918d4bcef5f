/**
 * What each row will still need from the service: requests in the worst case (one submit per step
 * to send, plus every status poll a video may take until its timeout; retries are not counted, as
 * nothing can bound them), the requests expected (polls until the usual video time), and its
 * credits. `--fit` starts a row only when the quota and the budget left cover this, so a night
 * never leaves half a row's assets made.
 */
import { pollsWithin } from '../api/poll-schedule.js';
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import { priceInstance } from './price-instance.js';

export interface RowNeeds {
  /** By sheet row index. */
  readonly worstRequests: Float64Array;
  readonly expectedRequests: Float64Array;
  readonly credits: Float64Array;
}

/** Status polls per video job: until its usual time, and until its timeout. */
export function pollsPerVideo(expansion: Expansion): { readonly expected: number; readonly worst: number } {
  const { video } = expansion.pipeline.api;
  const schedule = { intervalSeconds: video.pollIntervalSeconds, maxIntervalSeconds: video.pollIntervalMaxSeconds };
  return { expected: pollsWithin(video.expectedSeconds, schedule), worst: pollsWithin(video.timeoutSeconds, schedule) };
}

/** Steps the cache covers need nothing; an unpriced step counts 0 credits (the plan says so). */
export function rowNeeds(
  expansion: Expansion,
  isCached: (instance: StepInstance) => boolean,
  includeRow?: (rowIndex: number) => boolean,
): RowNeeds {
  const rows = expansion.counts.rows;
  const needs: RowNeeds = {
    worstRequests: new Float64Array(rows),
    expectedRequests: new Float64Array(rows),
    credits: new Float64Array(rows),
  };
  const polls = pollsPerVideo(expansion);
  for (const instance of expansion.instances(includeRow)) {
    if (isCached(instance)) continue;
    const row = instance.rowIndex;
    const video = instance.operation === 'video';
    needs.worstRequests[row] = (needs.worstRequests[row] ?? 0) + 1 + (video ? polls.worst : 0);
    needs.expectedRequests[row] = (needs.expectedRequests[row] ?? 0) + 1 + (video ? polls.expected : 0);
    const price = priceInstance(instance, expansion.pipeline.pricing);
    if (price.priced) needs.credits[row] = (needs.credits[row] ?? 0) + price.credits;
  }
  return needs;
}
