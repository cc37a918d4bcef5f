/**
 * When a video job's status is polled: the first poll one interval after the submit, then every
 * interval, growing by a factor up to a cap when the pipeline allows it (api.video
 * poll_interval_max_seconds). Plans count polls with it and the client waits by it, so an estimate
 * and what the client does cannot drift apart.
 */

/** How much the interval grows after each poll, when it may grow at all. */
export const POLL_GROWTH = 1.5;

export interface PollSchedule {
  readonly intervalSeconds: number;
  readonly maxIntervalSeconds: number;
}

/** Seconds to wait before each poll, forever; the caller decides when to stop. */
export function* pollDelays(schedule: PollSchedule): Generator<number> {
  let interval = schedule.intervalSeconds;
  for (;;) {
    yield interval;
    interval = Math.min(interval * POLL_GROWTH, Math.max(schedule.maxIntervalSeconds, schedule.intervalSeconds));
  }
}

/** Polls made by `seconds` after the submit, the one at exactly `seconds` included. */
export function pollsWithin(seconds: number, schedule: PollSchedule): number {
  let polls = 0;
  let elapsed = 0;
  for (const delay of pollDelays(schedule)) {
    // A little tolerance, so 120 s at 5 s intervals is 24 polls, not 23, whatever floating point says.
    if (elapsed + delay > seconds + 1e-9) return polls;
    elapsed += delay;
    polls++;
  }
  return polls;
}
