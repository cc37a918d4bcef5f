import { describe, expect, it } from 'vitest';
import { pollDelays, pollsWithin } from '../../src/api/poll-schedule.js';

describe('poll schedule', () => {
  it('polls every interval by default: 24 polls in 120 s, 60 in the 5-minute timeout', () => {
    const fixed = { intervalSeconds: 5, maxIntervalSeconds: 5 };
    expect(pollsWithin(120, fixed)).toBe(24);
    expect(pollsWithin(300, fixed)).toBe(60);
    expect(pollsWithin(4, fixed)).toBe(0);
  });

  it('grows by half each time up to the cap when allowed', () => {
    const delays = pollDelays({ intervalSeconds: 5, maxIntervalSeconds: 20 });
    expect(Array.from({ length: 7 }, () => delays.next().value)).toEqual([5, 7.5, 11.25, 16.875, 20, 20, 20]);
  });

  it('never polls faster than the interval, even with a lower cap', () => {
    const delays = pollDelays({ intervalSeconds: 5, maxIntervalSeconds: 1 });
    expect([delays.next().value, delays.next().value]).toEqual([5, 5]);
  });
});
