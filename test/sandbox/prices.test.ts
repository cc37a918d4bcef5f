/**
 * What the sandbox charges where the reference publishes no price: iota-2 and iota-2-edit by
 * resolution and quality, from the sandbox's own table (the client has none: a pipeline prices
 * them with `pricing:`). docs/sandbox.md states these numbers.
 */
import { describe, expect, it } from 'vitest';
import { OPEN_ITEMS } from '../../src/catalog/open-items.js';
import { resolutionAndQuality, unitCredits } from '../../src/sandbox/endpoints/model-pricing.js';

// Per image or edit: 1k 150/250/400, 2k 300/500/800, 4k 600/1,000/1,600 for low/medium/high.
const GRID = {
  '1k-low': 150,
  '1k-medium': 250,
  '1k-high': 400,
  '2k-low': 300,
  '2k-medium': 500,
  '2k-high': 800,
  '4k-low': 600,
  '4k-medium': 1000,
  '4k-high': 1600,
};

describe('sandbox prices', () => {
  it.each(['iota-2', 'iota-2-edit'])('prices %s per tier from its own table, 1k medium by default', (model) => {
    for (const [tier, credits] of Object.entries(GRID)) {
      const [resolution, quality] = tier.split('-');
      expect(resolutionAndQuality({ resolution, quality }, model)).toBe(tier);
      expect(unitCredits(model, tier)).toBe(credits);
    }
    expect(resolutionAndQuality({}, model)).toBe('1k-medium');
  });

  it('charges the published price of every other model, which takes no resolution or quality', () => {
    expect(unitCredits('eta-v4', resolutionAndQuality({}, 'eta-v4'))).toBe(200);
    expect(() => resolutionAndQuality({ quality: 'high' }, 'eta-v4')).toThrow(/only with iota-2 and iota-2-edit/);
  });

  it('leaves the catalogue the client ships with free of sandbox prices', () => {
    expect(JSON.stringify(OPEN_ITEMS)).not.toMatch(/1k-medium|iota/);
  });
});
