/**
 * The example workflows (examples/github-actions/), read as data: what a team copying them relies
 * on, and that they use assetline's actions as those declare themselves.
 */
import { describe, expect, it } from 'vitest';
import {
  type Action,
  artifactPattern,
  expressions,
  type Job,
  prepare,
  readYaml,
  type Step,
  VERSIONED_ACTION,
  type Workflow,
} from '../helpers/github-yaml.js';

const action = readYaml<Action>('action.yml');
const mergeAction = readYaml<Action>('merge/action.yml');
/** assetline's action as an example names it: a release of a copy, or the checkout itself. */
const isAssetline = (step: Step) => /^(\.\/?|[\w.-]+\/assetline@v\d+)$/.test(step.uses ?? '');
const isAssetlineMerge = (step: Step) => /^(\.\/merge|[\w.-]+\/assetline\/merge@v\d+)$/.test(step.uses ?? '');

const WORKFLOWS = {
  'nightly.yml': readYaml<Workflow>('examples/github-actions/nightly.yml'),
  'matrix.yml': readYaml<Workflow>('examples/github-actions/matrix.yml'),
};

describe.each(Object.entries(WORKFLOWS))('examples/github-actions/%s', (_name, workflow) => {
  const jobs = Object.values(workflow.jobs);
  const steps = jobs.flatMap((job) => job.steps);

  it('runs on a nightly schedule and by hand, one run at a time, each job with a time limit', () => {
    expect(workflow.on.schedule?.[0]?.cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(workflow.on).toHaveProperty('workflow_dispatch');
    expect(workflow.concurrency?.group).toBeTruthy();
    expect(workflow.concurrency?.['cancel-in-progress']).toBe(false);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const job of jobs) expect(job['timeout-minutes']).toBeGreaterThan(0);
    // GitHub stops a job on its runners after 6 hours.
    for (const job of jobs) expect(job['timeout-minutes']).toBeLessThanOrEqual(360);
  });

  it('names every action at a major version, or assetline’s own', () => {
    for (const step of steps.filter((step) => step.uses))
      expect(isAssetline(step) || isAssetlineMerge(step) || VERSIONED_ACTION.test(step.uses!), step.uses).toBe(true);
  });

  it('gives assetline’s actions their required inputs and no inputs they do not declare', () => {
    const calls: [Step, Action][] = [
      ...steps.filter(isAssetline).map((step): [Step, Action] => [step, action]),
      ...steps.filter(isAssetlineMerge).map((step): [Step, Action] => [step, mergeAction]),
    ];
    expect(calls.length).toBeGreaterThan(0);
    for (const [step, declared] of calls) {
      for (const name of Object.keys(step.with ?? {})) expect(Object.keys(declared.inputs), name).toContain(name);
      for (const [name, input] of Object.entries(declared.inputs))
        if (input.required) expect(step.with, name).toHaveProperty(name);
    }
  });

  it('stops the run before the job’s time limit, so the state and the artifact are still saved', () => {
    for (const job of jobs)
      for (const step of job.steps.filter(isAssetline)) {
        expect(Number(step.with?.['timeout-minutes'])).toBeGreaterThan(0);
        expect(Number(step.with?.['timeout-minutes'])).toBeLessThanOrEqual(job['timeout-minutes']! - 10);
      }
  });

  it('takes the key from secrets in the api-key input only, and no step prints it', () => {
    for (const step of steps) {
      const secrets = expressions(step).filter((text) => text.includes('secrets'));
      if (secrets.length === 0) continue;
      expect(isAssetline(step), step.name).toBe(true);
      expect(expressions(step.with?.['api-key'])).toEqual(secrets);
    }
    expect(steps.filter(isAssetline).every((step) => /secrets/.test(String(step.with?.['api-key'])))).toBe(true);
    expect(JSON.stringify(workflow.env ?? {})).not.toContain('secrets');
    for (const job of jobs) expect(JSON.stringify(job.env ?? {})).not.toContain('secrets');
    for (const step of steps) expect(step.run ?? '').not.toMatch(/secrets|API_KEY|\benv\b|printenv|set -x/);
    for (const step of steps.filter(isAssetline))
      expect(step.with?.['base-url']).toBe('${{ vars.ASSETLINE_BASE_URL }}');
  });
});

describe('examples/github-actions/nightly.yml', () => {
  const workflow = WORKFLOWS['nightly.yml'];
  const [job] = Object.values(workflow.jobs) as [Job];

  it('checks out the repository, then runs the pipeline named at the top with the action, unsharded', () => {
    expect(job.steps[0]?.uses).toBe('actions/checkout@v4');
    const runs = job.steps.filter(isAssetline);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.with?.pipeline).toBe('${{ env.ASSETLINE_PIPELINE }}');
    expect(runs[0]?.with).not.toHaveProperty('shard');
    expect(workflow.env?.ASSETLINE_PIPELINE).toBe('pipelines/catalog.yaml');
    expect(runs[0]?.['continue-on-error']).toBeUndefined();
  });
});

describe('examples/github-actions/matrix.yml', () => {
  const workflow = WORKFLOWS['matrix.yml'];
  const entries = Object.entries(workflow.jobs);
  const [shardsId, shards] = entries.find(([, job]) => job.steps.some(isAssetline))!;
  const [, merge] = entries.find(([, job]) => job.steps.some(isAssetlineMerge))!;
  const matrix = shards.strategy?.matrix ?? {};
  const count = Number(matrix.count?.[0]);
  const run = shards.steps.find(isAssetline)!;
  const download = merge.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'));
  const mergeStep = merge.steps.find(isAssetlineMerge);

  it('runs shard 1..n of n in a matrix that a failing shard does not cancel', () => {
    expect(count).toBeGreaterThan(1);
    expect(matrix.shard).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(matrix.count).toEqual([count]);
    expect(shards.strategy?.['fail-fast']).toBe(false);
    expect(shards.strategy?.['max-parallel']).toBeGreaterThan(0);
    expect(run.with?.shard).toBe('${{ matrix.shard }}/${{ matrix.count }}');
  });

  it('gives each shard its own key when there is one, else the shared one', () => {
    expect(run.with?.['api-key']).toBe(
      "${{ secrets[format('ASSETLINE_API_KEY_{0}', matrix.shard)] || secrets.ASSETLINE_API_KEY }}",
    );
  });

  it('merges after the shards, whatever became of them', () => {
    expect([merge.needs].flat()).toContain(shardsId);
    expect(merge.if).toBe('always()');
    expect(download?.uses).toBe('actions/download-artifact@v4');
    expect(mergeStep).toBeDefined();
    expect(merge.steps.indexOf(download!)).toBeLessThan(merge.steps.indexOf(mergeStep!));
  });

  it('downloads each shard’s artifact, as the action names it, into a folder of its own that the merge reads', () => {
    expect(download?.with?.['merge-multiple']).toBe(false);
    const pattern = artifactPattern(String(download?.with?.pattern));
    for (const pipeline of ['pipelines/catalog.yaml', 'pipelines/product-shoot.yaml']) {
      for (let shard = 1; shard <= count; shard++) {
        const { outputs } = prepare({ pipeline, shard: `${shard}/${count}` });
        expect(outputs['artifact-name']).toMatch(pattern);
      }
      // Not the unsharded run's artifact, nor the merged one (a rerun of the merge job).
      expect(prepare({ pipeline }).outputs['artifact-name']).not.toMatch(pattern);
    }
    expect(mergeStep?.with?.['artifact-name'] ?? mergeAction.inputs['artifact-name']?.default).not.toMatch(pattern);
    expect(mergeStep?.with?.shards).toBe(`${String(download?.with?.path)}/*`);
  });
});
