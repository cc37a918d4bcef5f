/** A shard's part of the key's quota and of the budget: floor(1/n), or what the pipeline or the flag says. */
import { describe, expect, it } from 'vitest';
import { budgetShare, quotaShare } from '../../src/plan/shard-share.js';

describe("a shard's quota", () => {
  it('is floor(1/n) of what the key has left, and of a whole window', () => {
    expect(quotaShare({ limit: 1000, remaining: 1000 }, { count: 4 })).toEqual({
      requests: 250,
      perWindow: 250,
      source: 'split',
    });
    // 999 left of 1,000 over 4: the four shares never add up to more than is left.
    expect(quotaShare({ limit: 1000, remaining: 999 }, { count: 4 })).toMatchObject({ requests: 249, perWindow: 250 });
    expect(quotaShare({ limit: 100, remaining: 0 }, { count: 3 })).toMatchObject({ requests: 0, perWindow: 33 });
    expect(quotaShare({ limit: null, remaining: null }, { count: 4 })).toMatchObject({
      requests: null,
      perWindow: null,
    });
  });

  it('is api.quota_per_shard when set, but never more than the key has left', () => {
    expect(quotaShare({ limit: 1000, remaining: 1000 }, { count: 4, quotaPerShard: 1000 })).toEqual({
      requests: 1000,
      perWindow: 1000,
      source: 'quota_per_shard',
    });
    expect(quotaShare({ limit: 1000, remaining: 400 }, { count: 4, quotaPerShard: 300 })).toMatchObject({
      requests: 300,
      perWindow: 300,
    });
    expect(quotaShare({ limit: 1000, remaining: 120 }, { count: 4, quotaPerShard: 300 })).toMatchObject({
      requests: 120,
    });
    expect(quotaShare({ limit: 500, remaining: 500 }, { count: 2, quotaPerShard: 900 })).toMatchObject({
      requests: 500,
      perWindow: 500,
    });
  });
});

describe("a shard's budget", () => {
  it("is floor(1/n) of the pipeline's budget, saying what was divided", () => {
    expect(budgetShare({ value: 1000, source: 'pipeline' }, 3)).toEqual({
      value: 333,
      source: 'pipeline',
      split: { total: 1000, count: 3 },
    });
  });

  it('is --max-credits as given: the caller means this shard', () => {
    expect(budgetShare({ value: 1000, source: 'flag' }, 4)).toEqual({ value: 1000, source: 'flag', split: undefined });
  });

  it('is none without a budget, and the whole budget for one shard', () => {
    expect(budgetShare(undefined, 4)).toBeUndefined();
    expect(budgetShare({ value: 1000, source: 'pipeline' }, 1)).toEqual({
      value: 1000,
      source: 'pipeline',
      split: undefined,
    });
  });
});
