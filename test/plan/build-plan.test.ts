/**
 * Plans of fixture pipelines against totals computed by hand (the arithmetic is in the comments):
 * every operation, num_images, when: skips, iota-2 priced and unpriced, remove-bg's estimate,
 * video polls, budget and quota verdicts, and the cache hook.
 */
import { describe, expect, it } from 'vitest';
import type { Expansion } from '../../src/pipeline/expansion.js';
import { buildPlan, type PlanInput } from '../../src/plan/build-plan.js';
import { planJson } from '../../src/plan/plan-json.js';
import { planText } from '../../src/plan/plan-text.js';
import { lines, validateYaml } from '../helpers/temp-pipeline.js';

async function expand(yaml: string): Promise<Expansion> {
  const result = await validateYaml(yaml);
  expect(lines(result).filter((line) => !line.includes('warning'))).toEqual([]);
  if (!result.expansion) throw new Error('invalid');
  return result.expansion;
}

const ALL_OPERATIONS = `version: 1
name: all-ops
api: { plan: pro }
budget: { max_credits: 6000 }
rows:
  - { sku: A, name: Alpha, video: yes, n: 3 }
  - { sku: B, name: Beta, video: no, n: 1 }
row_key: sku
steps:
  - id: hero
    generate: { model: eta-v4, prompt: "\${{ row.name }}", num_images: "\${{ row.n }}" }
  - id: fix
    edit: { model: theta-edit, image: "\${{ steps.hero.output }}", prompt: brighter }
  - id: big
    upscale: { image: "\${{ steps.fix.output }}", scale: 4 }
  - id: cut
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: clip
    when: "\${{ row.video }}"
    video: { model: delta-2, prompt: "orbit \${{ row.name }}", duration: 8 }
  - id: voice
    tts: { model: beta-tts, text: "\${{ row.name }}" }
  - id: voice2
    tts: { text: "\${{ row.name }}" }
`;

const ALLOWED: PlanInput = { allowUnpriced: false, quotaUsed: { count: 0, source: 'flag' } };

describe('credits', () => {
  it('prices every operation per the catalogue and totals by model, step and row', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      ...ALLOWED,
      maxCredits: { value: 6000, source: 'pipeline' },
    });
    // hero: eta-v4 200 x 3 images (A) + 200 x 1 (B) = 800     fix: theta-edit 240 x 2 rows = 480
    // big: upscale 100 x 2 = 200     cut: remove-bg default 100 x 2 = 200 (estimated)
    // clip: delta-2 3,500, row A only (B: when no)    voice: beta-tts 100 x 2 = 200    voice2: tts-alpha 10 x 2 = 20
    expect(plan.credits.total).toBe(5400);
    expect(Object.fromEntries(plan.credits.byStep)).toEqual({
      hero: 800,
      fix: 480,
      big: 200,
      cut: 200,
      clip: 3500,
      voice: 200,
      voice2: 20,
    });
    expect(Object.fromEntries(plan.credits.byModel)).toEqual({
      'eta-v4': 800,
      'theta-edit': 480,
      upscale: 200,
      'remove-bg': 200,
      'delta-2': 3500,
      'beta-tts': 100 * 2,
      'tts-alpha': 20,
    });
    // A: 600 + 240 + 100 + 100 + 3,500 + 100 + 10 = 4,650; B: 200 + 240 + 100 + 100 + 100 + 10 = 750
    expect(Object.fromEntries(plan.credits.byRow)).toEqual({ A: 4650, B: 750 });
    expect(plan.credits).toMatchObject({ estimated: true, estimatedCredits: 200, unpriced: 0, lowerBound: false });
    expect(plan.skipped).toEqual({ when: 1, upstream: 0 });
    expect(plan.refused).toBe(false);
  });

  it('lists each step by model and unit price', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), ALLOWED);
    const hero = plan.lines.find((line) => line.stepId === 'hero');
    expect(hero).toMatchObject({
      priceKey: 'eta-v4',
      instances: 2,
      units: 4,
      unitCredits: 200,
      credits: 800,
      source: 'published',
    });
    expect(plan.lines.find((line) => line.stepId === 'cut')).toMatchObject({ unitCredits: 100, source: 'default' });
  });

  it('uses pricing: for remove-bg and for published models, and says so', async () => {
    const yaml = ALL_OPERATIONS.replace('budget: { max_credits: 6000 }', 'pricing: { remove-bg: 60, beta-tts: 90 }');
    const plan = buildPlan(await expand(yaml), ALLOWED);
    // 5,400 - 2 x (100 - 60) - 2 x (100 - 90) = 5,300; estimated: remove-bg 120 + beta-tts 180
    expect(plan.credits.total).toBe(5300);
    expect(plan.credits.estimatedCredits).toBe(300);
    expect(plan.warnings).toContainEqual(expect.stringContaining('remove-bg at 60 from pricing.remove-bg'));
  });
});

describe('iota-2 and iota-2-edit', () => {
  const IOTA = `version: 1
name: iota
rows: [{ k: a }, { k: b }]
row_key: k
steps:
  - id: hi
    generate: { model: iota-2, prompt: p, resolution: 2k, quality: high, num_images: 2 }
  - id: plain
    generate: { model: iota-2, prompt: p }
  - id: touch
    edit: { model: iota-2-edit, image: "\${{ steps.hi.output }}", prompt: p, quality: low }
`;

  it('refuse without a price, showing the exact YAML to add', async () => {
    const plan = buildPlan(await expand(IOTA), ALLOWED);
    expect(plan.refused).toBe(true);
    expect(plan.credits.unpriced).toBe(6);
    expect(plan.reasons).toEqual([
      [
        '6 step instances use iota-2 and iota-2-edit, which have no published price; add your price to the pipeline, or run with --allow-unpriced to plan with a lower bound:',
        '',
        'pricing:',
        '  iota-2:   # credits per image, by "<resolution>-<quality>"',
        '    2k-high: <credits>',
        '    default-default: <credits>',
        '  iota-2-edit:   # credits per edit, by "<resolution>-<quality>"',
        '    default-low: <credits>',
      ].join('\n'),
    ]);
  });

  it('plan a lower bound with --allow-unpriced', async () => {
    const plan = buildPlan(await expand(IOTA), { ...ALLOWED, allowUnpriced: true });
    expect(plan.refused).toBe(false);
    expect(plan.credits).toMatchObject({ total: 0, unpriced: 6, lowerBound: true });
    expect(plan.requests.submits).toBe(6);
    expect(plan.warnings).toContainEqual(expect.stringMatching(/^the credit total is a lower bound: 6 step instances/));
  });

  it('price by the table in pricing:, per image', async () => {
    const yaml = IOTA.replace(
      'steps:',
      'pricing:\n  iota-2: { 2k-high: 700, default-default: 300 }\n  iota-2-edit: 500\nsteps:',
    );
    const plan = buildPlan(await expand(yaml), ALLOWED);
    // hi: 700 x 2 images x 2 rows = 2,800; plain: 300 x 2 = 600; touch: 500 x 2 = 1,000
    expect(Object.fromEntries(plan.credits.byStep)).toEqual({ hi: 2800, plain: 600, touch: 1000 });
    expect(plan.credits).toMatchObject({ total: 4400, estimated: true, estimatedCredits: 4400, unpriced: 0 });
    expect(plan.refused).toBe(false);
  });

  it('refuse a combination the table leaves out', async () => {
    const yaml = IOTA.replace('steps:', 'pricing:\n  iota-2: { default-default: 300 }\n  iota-2-edit: 500\nsteps:');
    const plan = buildPlan(await expand(yaml), ALLOWED);
    expect(plan.reasons[0]).toContain('2 step instances use iota-2');
    expect(plan.reasons[0]).toContain('    2k-high: <credits>');
    expect(plan.reasons[0]).not.toContain('default-default');
  });
});

describe('requests and polls', () => {
  it('count one submit per instance and status polls per video', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), ALLOWED);
    // 7 steps x 2 rows - 1 skipped = 13 submits; 1 video: 120 s / 5 s = 24 polls expected, 300 s / 5 s = 60 worst
    expect(plan.requests).toEqual({
      submits: 13,
      videos: 1,
      pollsExpected: 24,
      pollsWorst: 60,
      pollsPerVideoExpected: 24,
      pollsPerVideoWorst: 60,
    });
  });

  it('follow the pipeline polling settings, growing intervals included', async () => {
    const yaml = ALL_OPERATIONS.replace(
      'api: { plan: pro }',
      'api:\n  plan: pro\n  video: { poll_interval_seconds: 5, poll_interval_max_seconds: 20 }',
    );
    const plan = buildPlan(await expand(yaml), ALLOWED);
    // polls at 5, 12.5, 23.75, 40.625, 60.625, then every 20 s: 80.625, 100.625 (<= 120) -> 7
    // worst: 60.625 + 20k <= 300 -> k = 11 -> 16
    expect(plan.requests).toMatchObject({ pollsExpected: 7, pollsWorst: 16 });
  });
});

describe('the verdict', () => {
  it('refuses over the budget, with the numbers', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      ...ALLOWED,
      maxCredits: { value: 5000, source: 'pipeline' },
    });
    expect(plan.reasons).toEqual([
      'needs 5,400 credits, over the budget of 5,000 (budget.max_credits); run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
  });

  it('names --max-credits when it set the budget', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), { ...ALLOWED, maxCredits: { value: 100, source: 'flag' } });
    expect(plan.reasons).toEqual([
      'needs 5,400 credits, over the budget of 100 (--max-credits); run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
  });

  it('refuses when the expected requests pass the quota left', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      allowUnpriced: false,
      quotaUsed: { count: 990, source: 'ledger' },
    });
    // 13 submits + 24 polls = 37 > 1,000 - 990 = 10
    expect(plan.reasons).toEqual([
      'needs 37 requests (13 submits + ~24 polls), 10 left of 1,000 today; run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
    expect(plan.quota).toEqual({
      plan: 'pro',
      limit: 1000,
      used24h: 990,
      usedSource: 'ledger',
      remaining: 10,
      refusedAt: null,
    });
  });

  it('only warns when just the worst case passes the quota', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      allowUnpriced: false,
      quotaUsed: { count: 950, source: 'flag' },
    });
    // expected 37 <= 50 left; worst 13 + 60 = 73 > 50
    expect(plan.refused).toBe(false);
    expect(plan.warnings).toContainEqual(
      'in the worst case, every video job polled until its 5-minute timeout, needs 73 requests (13 submits + 60 polls), 50 left of 1,000 today',
    );
  });

  it('uses the free plan and an explicit enterprise quota', async () => {
    const free = buildPlan(await expand(ALL_OPERATIONS.replace('plan: pro', 'plan: free')), {
      allowUnpriced: false,
      quotaUsed: { count: 80, source: 'flag' },
    });
    expect(free.reasons).toEqual([
      'needs 37 requests (13 submits + ~24 polls), 20 left of 100 today; run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
    const enterprise = buildPlan(
      await expand(ALL_OPERATIONS.replace('plan: pro', 'plan: enterprise, quota: 30')),
      ALLOWED,
    );
    expect(enterprise.reasons).toEqual([
      'needs 37 requests (13 submits + ~24 polls), 30 left of 30 today; run with --fit to run the whole rows that fit and defer the rest to a later run (exit 4)',
    ]);
  });

  it('says when the quota already used is unknown, and when there is no budget', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), { allowUnpriced: false });
    expect(plan.quota.usedSource).toBe('unknown');
    expect(plan.warnings).toContainEqual(expect.stringContaining('requests already sent today are unknown'));
    expect(plan.warnings).toContainEqual(expect.stringContaining('no budget'));
  });
});

describe('the cache hook', () => {
  it('counts reusable instances as 0 credits and 0 requests, and lists them', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      ...ALLOWED,
      isCached: (instance) => instance.rowKey === 'A',
    });
    expect(plan.cached).toEqual({ instances: 7, creditsSaved: 4650, rows: 1 });
    expect(plan.rowsToSend).toEqual(['B']);
    expect(plan.credits.total).toBe(750);
    expect(plan.requests).toMatchObject({ submits: 6, videos: 0, pollsExpected: 0 });
    expect(Object.fromEntries(plan.credits.byRow)).toEqual({ A: 0, B: 750 });
    expect(plan.lines.find((line) => line.stepId === 'clip')).toMatchObject({ instances: 1, cached: 1, credits: 0 });
  });
});

describe('rows and redos chosen', () => {
  it('plans only the rows --rows chose: credits, requests, counts and skips', async () => {
    const expansion = await expand(ALL_OPERATIONS);
    const plan = buildPlan(expansion, { ...ALLOWED, includeRow: (row) => row === 1 });
    // Row B: hero 200 + fix 240 + big 100 + cut 100 + voice 100 + voice2 10 = 750; its clip is skipped by when:.
    expect(plan.credits.total).toBe(750);
    expect(plan.rows).toBe(1);
    expect(plan.selection).toEqual({ rows: 1, ofRows: 2 });
    expect(plan.instances).toBe(6);
    expect(plan.skipped).toEqual({ when: 1, upstream: 0 });
    expect(Object.fromEntries(plan.credits.byRow)).toEqual({ B: 750 });
    expect(plan.requests.submits).toBe(6);
    expect(planJson(plan)).toMatchObject({ rows: 1, selection: { rows: 1, of_rows: 2 }, steps: 6 });
    expect(planText(plan)).toContain('1 of 2 rows (--rows), 6 step instances to run, 1 skipped by when:');
  });

  it('counts a redone result as sent, and as redone, never as cached', async () => {
    const plan = buildPlan(await expand(ALL_OPERATIONS), {
      ...ALLOWED,
      // Everything is cached, and row A's fix, big and cut are paid for again.
      isCached: (instance) => !(instance.rowKey === 'A' && ['fix', 'big', 'cut'].includes(instance.stepId)),
      isRedo: (instance) => instance.rowKey === 'A' && ['fix', 'big', 'cut'].includes(instance.stepId),
    });
    // fix theta-edit 240 + big 100 + cut ~100 = 440.
    expect(plan.redo).toEqual({ instances: 3, rows: 1, credits: 440 });
    expect(plan.credits.total).toBe(440);
    expect(plan.requests.submits).toBe(3);
    expect(plan.rowsToSend).toEqual(['A']);
    expect(planJson(plan).redo).toEqual({ steps: 3, rows: 1, credits: 440 });
    expect(planText(plan)).toContain('  redo:      3 steps in 1 row, ~440 credits (cached results paid again)');
    expect(planText(buildPlan(await expand(ALL_OPERATIONS), ALLOWED))).not.toContain('redo:');
    expect(planJson(buildPlan(await expand(ALL_OPERATIONS), ALLOWED))).toMatchObject({
      selection: null,
      redo: { steps: 0, rows: 0, credits: 0 },
    });
  });
});
