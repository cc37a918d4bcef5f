/**
 * The GitHub Action (action.yml) and its merge half (merge/action.yml), read as data, and their
 * scripts run with bash against a stand-in for the CLI: what a team using them relies on. The
 * flags they pass are checked against the commands' --help as the source prints it now, so the
 * checks of --shard and of `merge` switch on when those land.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Action,
  expressions,
  flagsPassed,
  helpFlags,
  inputsUsed,
  prepare,
  readYaml,
  ROOT,
  runStep,
  type Step,
  VERSIONED_ACTION,
} from '../helpers/github-yaml.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'sk-test-do-not-print-51c0de';
const hasBash = spawnSync('bash', ['--version']).status === 0;
const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;
const runHelp = await helpFlags(['run', '--help']);
const mergeHelp = await helpFlags(['merge', '--help']);

const ACTIONS = {
  'action.yml': readYaml<Action>('action.yml'),
  'merge/action.yml': readYaml<Action>('merge/action.yml'),
};
const action = ACTIONS['action.yml'];
const merge = ACTIONS['merge/action.yml'];
const byId = (file: Action, id: string): Step => file.runs.steps.find((step) => step.id === id)!;
const byUses = (file: Action, name: string): Step[] =>
  file.runs.steps.filter((step) => step.uses?.startsWith(`${name}@`));
const position = (file: Action, step: Step | undefined): number => file.runs.steps.indexOf(step!);

describe.each(Object.entries(ACTIONS))('%s', (fileName, file) => {
  it('is a composite action: each step runs a script with its shell, or an action at a major version', () => {
    expect(file.runs.using).toBe('composite');
    for (const step of file.runs.steps) {
      expect(step.name, JSON.stringify(step)).toBeTruthy();
      if (step.uses) expect(step.uses).toMatch(VERSIONED_ACTION);
      else expect(step.shell).toBe('bash');
    }
  });

  it('declares every input it uses and uses every input it declares; required inputs have no default', () => {
    const declared = Object.keys(file.inputs);
    expect([...inputsUsed(file)].sort()).toEqual([...declared].sort());
    for (const [name, input] of Object.entries(file.inputs)) {
      expect(input.description, name).toBeTruthy();
      if (input.required) expect(input, name).not.toHaveProperty('default');
      else expect(input, name).toHaveProperty('default');
    }
  });

  it('refers only to steps before the one that reads their outputs', () => {
    file.runs.steps.forEach((step, index) => {
      for (const [, id] of expressions(step).flatMap((text) => [...text.matchAll(/\bsteps\.([\w-]+)\./g)])) {
        const source = file.runs.steps.findIndex((other) => other.id === id);
        expect(source, `${step.name} reads steps.${id}`).toBeGreaterThanOrEqual(0);
        expect(source, `${step.name} reads steps.${id}`).toBeLessThan(index);
      }
    });
    for (const [name, output] of Object.entries(file.outputs)) expect(output.value, name).toMatch(/\$\{\{.+\}\}/);
  });

  it('puts no expression inside a script: inputs reach scripts as quoted environment variables', () => {
    for (const step of file.runs.steps) expect(step.run ?? '', step.name).not.toContain('${{');
  });

  it('installs assetline from its own checkout: exactly its lockfile, then npm run build', () => {
    const install = file.runs.steps.find((step) => /^npm ci\b/m.test(step.run ?? ''));
    expect(install?.run).toMatch(/^npm ci --no-audit --no-fund\nnpm run build\n?$/);
    expect(install?.['working-directory']).toMatch(/^\$\{\{ github\.action_path \}\}(\/\.\.)?$/);
    const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    expect(packageJson.scripts.build).toBeTruthy();
    expect(packageJson.bin.assetline).toBe('dist/cli.js');
    expect(position(file, byUses(file, 'actions/setup-node')[0])).toBeLessThan(position(file, install));
    expect(position(file, byUses(file, 'actions/cache')[0])).toBeLessThan(position(file, install));
  });

  it('names only files the repository has (dist/ being what npm run build makes of src/)', () => {
    const text = JSON.stringify(file.runs.steps);
    const paths = [
      ...[...text.matchAll(/\$GITHUB_ACTION_PATH\/([\w./-]+)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/\$\{\{ github\.action_path \}\}\/([\w./-]+)/g)].map((m) => m[1]!),
    ];
    expect(paths.length).toBeGreaterThan(0);
    const base = path.dirname(path.join(ROOT, fileName));
    for (const relative of paths) {
      const named = path.resolve(base, relative);
      const source = named.replace(`${ROOT}/dist/`, `${ROOT}/src/`).replace(/\.js$/, '.ts');
      expect(fs.existsSync(named) || fs.existsSync(source), relative).toBe(true);
    }
  });

  it('uploads under always(), replacing the artifact of an earlier attempt, and passes the exit code on last', () => {
    const [upload] = byUses(file, 'actions/upload-artifact');
    expect(upload?.uses).toBe('actions/upload-artifact@v4');
    expect(upload?.if).toContain('always()');
    expect(upload?.with?.overwrite).toBe(true);
    expect(Number(file.inputs['retention-days']?.default)).toBeGreaterThan(0);
    const last = file.runs.steps.at(-1)!;
    expect(last.if).toContain('always()');
    expect(last.run?.trimEnd()).toMatch(/exit "\$EXIT_CODE"$/);
    expect(file.outputs['exit-code']?.value).toMatch(/^\$\{\{ steps\.\w+\.outputs\.exit-code \}\}$/);
  });

  it.skipIf(!hasShellcheck)(
    `has scripts shellcheck finds nothing in${hasShellcheck ? '' : ' (skipped: shellcheck is not installed)'}`,
    () => {
      for (const step of file.runs.steps.filter((step) => step.run)) {
        const script = path.join(tempDir(), 'step.sh');
        fs.writeFileSync(script, `#!/usr/bin/env bash\n${step.run}`);
        const result = spawnSync('shellcheck', ['--shell=bash', script], { encoding: 'utf8' });
        expect(result.stdout, step.name).toBe('');
      }
    },
  );

  it('never prints the environment, and has no secrets of its own', () => {
    // A composite action cannot read secrets: the workflow passes the key in.
    expect(expressions(file).filter((text) => text.includes('secrets'))).toEqual([]);
    for (const step of file.runs.steps) {
      expect(step.run ?? '').not.toMatch(/\bprintenv\b|^\s*env\s*$|set -x|set -o xtrace/m);
      expect(step.run ?? '').not.toMatch(/(echo|printf)[^\n]*(API_KEY|api-key)/);
    }
  });
});

describe('action.yml: assetline run', () => {
  const runStepOf = byId(action, 'run');
  const restore = byUses(action, 'actions/cache/restore')[0];
  const save = byUses(action, 'actions/cache/save')[0];
  const upload = byUses(action, 'actions/upload-artifact')[0];

  it('takes pipeline (required), shard, max-credits, fit, sandbox, working-directory and node-version, with their defaults', () => {
    expect(action.inputs.pipeline).toEqual(expect.objectContaining({ required: true }));
    expect(action.inputs).toMatchObject({
      shard: { default: '' },
      'max-credits': { default: '' },
      fit: { default: 'false' },
      sandbox: { default: 'false' },
      'working-directory': { default: '.' },
      'node-version': { default: '22' },
      out: { default: 'out' },
      'state-dir': { default: '.assetline' },
      'fail-on-deferred': { default: 'auto' },
    });
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['exit-code', 'manifest', 'artifact-name']));
  });

  it('passes only flags that `assetline run --help` lists (all but --shard)', () => {
    expect(runHelp.code).toBe(0);
    const flags = flagsPassed(runStepOf.run!);
    expect(flags).toEqual(expect.arrayContaining(['--out', '--state-dir', '--json', '--max-credits', '--fit']));
    for (const flag of flags.filter((flag) => flag !== '--shard')) expect(runHelp.flags, flag).toContain(flag);
  });

  it.skipIf(!runHelp.flags.has('--shard'))(
    `passes --shard, which \`assetline run --help\` lists${runHelp.flags.has('--shard') ? '' : ' (skipped: not yet on this branch; the shard branch adds it)'}`,
    () => {
      expect(flagsPassed(runStepOf.run!)).toContain('--shard');
      expect(runHelp.flags).toContain('--shard');
    },
  );

  it('restores, then saves, the state folder and the run folder under one key of the pipeline, the shard and the run', () => {
    expect(restore?.uses).toBe('actions/cache/restore@v4');
    expect(save?.uses).toBe('actions/cache/save@v4');
    expect(save?.with?.path).toBe(restore?.with?.path);
    expect(String(restore?.with?.path).trim().split('\n')).toEqual([
      '${{ steps.prepare.outputs.state-dir }}',
      '${{ steps.prepare.outputs.run-dir }}',
    ]);
    expect(save?.with?.key).toBe(restore?.with?.key);
    expect(restore?.with?.key).toBe(
      '${{ steps.prepare.outputs.cache-key-prefix }}${{ github.run_id }}-${{ github.run_attempt }}',
    );
    expect(restore?.with?.['restore-keys']).toBe('${{ steps.prepare.outputs.cache-key-prefix }}');
    expect(save?.if).toBe("always() && steps.restore.outcome == 'success'");
    expect(position(action, restore)).toBeLessThan(position(action, runStepOf));
    expect(position(action, save)).toBeGreaterThan(position(action, runStepOf));
    expect(upload?.with).toMatchObject({
      name: '${{ steps.prepare.outputs.artifact-name }}',
      path: '${{ steps.prepare.outputs.run-dir }}',
    });
  });

  it('names the folder, the cache and the artifact after the pipeline and the shard', () => {
    const sharded = prepare({ pipeline: 'pipelines/demo.yaml', shard: '2/4' });
    expect(sharded.code).toBe(0);
    expect(sharded.outputs).toMatchObject({
      'pipeline-name': 'demo',
      'run-dir': 'out/demo/shards/2-of-4',
      manifest: 'out/demo/shards/2-of-4/manifest.json',
      'state-dir': '.assetline',
      'cache-key-prefix': 'assetline/demo/shard-2-of-4/',
      'artifact-name': 'assetline-demo-shard-2-of-4',
      'fail-on-deferred': 'true',
    });
    const whole = prepare({ pipeline: 'pipelines/demo.yaml', out: 'build', 'state-dir': 'state' });
    expect(whole.outputs).toMatchObject({
      'run-dir': 'build/demo',
      'state-dir': 'state',
      'cache-key-prefix': 'assetline/demo/all/',
      'artifact-name': 'assetline-demo',
    });
    // A restore-keys prefix matches no other pipeline's or shard's keys.
    const prefixes = [
      sharded.outputs['cache-key-prefix']!,
      whole.outputs['cache-key-prefix']!,
      prepare({ pipeline: 'pipelines/demo.yaml', shard: '1/4' }).outputs['cache-key-prefix']!,
      prepare({ pipeline: 'demo-all.yaml' }).outputs['cache-key-prefix']!,
    ];
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a), `${a} ${b}`).toBe(false);
  });

  it('reads the folder name from the pipeline, relative to working-directory, and falls back to the file name', () => {
    const workspace = tempDir();
    fs.mkdirSync(path.join(workspace, 'site/pipelines'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'site/pipelines/a.yaml'), '# the shoot\nversion: 1\nname: "spring-shoes"\n');
    const named = prepare({ pipeline: 'pipelines/a.yaml', 'working-directory': 'site', shard: '3/3' }, workspace);
    expect(named.outputs).toMatchObject({
      'pipeline-name': 'spring-shoes',
      'run-dir': 'site/out/spring-shoes/shards/3-of-3',
      'state-dir': 'site/.assetline',
    });
    const missing = prepare({ pipeline: 'pipelines/gone.yaml' }, workspace);
    expect(missing.code).toBe(0);
    expect(missing.outputs['pipeline-name']).toBe('gone');
    expect(missing.stdout).toContain('::warning title=assetline::could not read name:');
  });

  it.each([
    [{ shard: '0/4' }, 'input shard: expected i/n with 1 <= i <= n (e.g. 2/4), got "0/4"'],
    [{ shard: '5/4' }, 'got "5/4"'],
    [{ shard: '2 of 4' }, 'got "2 of 4"'],
    [{ fit: 'maybe' }, 'input fit: expected true or false, got "maybe"'],
    [{ 'max-credits': '1e3' }, 'input max-credits: expected a whole number of credits, got "1e3"'],
    [{ 'fail-on-deferred': 'sometimes' }, 'input fail-on-deferred: expected auto, true or false'],
    [{ 'artifact-name': 'a\nfit=true' }, 'input artifact-name: expected one line, got 2'],
  ])('refuses %j with exit 2 and an ::error line, writing no outputs', (inputs, message) => {
    const result = prepare({ pipeline: 'pipelines/demo.yaml', ...inputs });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^::error title=assetline::input /m);
    expect(result.stdout).toContain(message);
    expect(result.outputs).toEqual({});
  });

  it('reads exit 4 as "more tomorrow" with fit, unless fail-on-deferred says otherwise', () => {
    const failOn = (inputs: Record<string, string>) =>
      prepare({ pipeline: 'pipelines/demo.yaml', ...inputs }).outputs['fail-on-deferred'];
    expect(failOn({})).toBe('true');
    expect(failOn({ fit: 'true' })).toBe('false');
    expect(failOn({ fit: 'TRUE', 'fail-on-deferred': 'true' })).toBe('true');
    expect(failOn({ 'fail-on-deferred': 'false' })).toBe('false');
  });

  it('gives the key to the run step only, from the api-key input', () => {
    const withKey = action.runs.steps.filter((step) => inputsUsed(step).has('api-key'));
    expect(withKey).toEqual([runStepOf]);
    expect(runStepOf.env?.INPUT_API_KEY).toBe('${{ inputs.api-key }}');
  });

  describe.skipIf(!hasBash)(`its run step${hasBash ? '' : ' (skipped: bash is not installed)'}`, () => {
    const env = (values: Record<string, string>) => ({
      PIPELINE: 'pipelines/demo.yaml',
      OUT_DIR: 'out',
      STATE_DIR: '.assetline',
      SHARD: '',
      MAX_CREDITS: '',
      FIT: 'false',
      SANDBOX: 'false',
      EXTRA_ARGS: '',
      TIMEOUT_MINUTES: '',
      INPUT_API_KEY: '',
      INPUT_BASE_URL: '',
      FAKE_KEY: KEY,
      SUMMARY_FILE: path.join(tempDir(), 'summary.json'),
      ...values,
    });

    it('maps the inputs to flags, quoted, with the key in the environment and in no output', () => {
      const cwd = tempDir();
      const result = runStep(
        runStepOf,
        env({
          PIPELINE: 'pipelines/my shoot.yaml',
          SHARD: '2/4',
          MAX_CREDITS: '300',
          FIT: 'true',
          SANDBOX: 'true',
          EXTRA_ARGS: '--concurrency 8  --rows SKU-1*',
          INPUT_API_KEY: KEY,
          INPUT_BASE_URL: 'https://api.example.test',
        }),
        cwd,
      );
      expect(result.code).toBe(0);
      expect(result.cli).toEqual({
        args: [
          'run',
          'pipelines/my shoot.yaml',
          '--out',
          'out',
          '--state-dir',
          '.assetline',
          '--json',
          '--shard',
          '2/4',
          '--max-credits',
          '300',
          '--fit',
          '--sandbox',
          '--concurrency',
          '8',
          '--rows',
          'SKU-1*',
        ],
        cwd: fs.realpathSync(cwd),
        key: 'given',
        baseUrl: 'https://api.example.test',
        inputKeyLeft: false,
      });
      expect(result.outputs).toEqual({ 'exit-code': '0' });
      expect(result.stdout).toContain('"status":"fake"');
      for (const text of [result.stdout, result.stderr, JSON.stringify(result.outputs)])
        expect(text).not.toContain(KEY);
    });

    it('keeps ASSETLINE_API_KEY from the environment when api-key is empty, and runs nothing an input says', () => {
      const cwd = tempDir();
      const result = runStep(
        runStepOf,
        env({ ASSETLINE_API_KEY: KEY, PIPELINE: '$(touch pwned).yaml', EXTRA_ARGS: '`touch pwned2` ;touch pwned3' }),
        cwd,
      );
      expect(result.cli?.key).toBe('given');
      expect(result.cli?.args.slice(0, 2)).toEqual(['run', '$(touch pwned).yaml']);
      expect(result.cli?.args.slice(-4)).toEqual(['`touch', 'pwned2`', ';touch', 'pwned3']);
      expect(fs.readdirSync(cwd).filter((name) => name.startsWith('pwned'))).toEqual([]);
    });

    it.each([1, 2, 3, 4, 5, 70, 143])('records exit %i as the output and does not fail the step itself', (code) => {
      const result = runStep(runStepOf, env({ FAKE_EXIT: String(code) }), tempDir());
      expect(result.code).toBe(0);
      expect(result.outputs['exit-code']).toBe(String(code));
    });

    it.skipIf(spawnSync('bash', ['-c', 'command -v timeout']).status !== 0)(
      'with timeout-minutes, runs assetline under timeout, passing on its own exit code',
      () => {
        const result = runStep(runStepOf, env({ TIMEOUT_MINUTES: '1', FAKE_EXIT: '4' }), tempDir());
        expect(result.outputs['exit-code']).toBe('4');
        expect(result.cli?.args[0]).toBe('run');
      },
    );
  });

  describe.skipIf(!hasBash)('its last step', () => {
    const last = action.runs.steps.at(-1)!;
    it.each([
      [0, 'true', 0],
      [1, 'false', 1],
      [2, 'false', 2],
      [3, 'false', 3],
      [4, 'true', 4],
      [4, 'false', 0],
      [5, 'false', 5],
      [70, 'false', 70],
      [130, 'false', 130],
      [143, 'false', 143],
    ])('turns exit %i with fail-on-deferred %s into %i', (code, failOnDeferred, expected) => {
      const result = runStep(
        last,
        { EXIT_CODE: String(code), FAIL_ON_DEFERRED: failOnDeferred, PIPELINE_NAME: 'catalog' },
        tempDir(),
      );
      expect(result.code).toBe(expected);
      if (code === 4 && expected === 0)
        expect(result.stdout).toMatch(/^::notice title=assetline catalog::exit 4, more tomorrow/);
      if (expected !== 0) expect(result.stdout).toContain(`assetline: catalog exited ${code}: `);
    });
  });
});

describe('merge/action.yml: assetline merge', () => {
  const mergeStep = byId(merge, 'merge');

  it('installs assetline as action.yml does', () => {
    const install = (file: Action) => file.runs.steps.filter((step) => step.uses || /npm/.test(step.run ?? ''));
    const normalise = (steps: Step[]) =>
      JSON.stringify(steps).replaceAll('$GITHUB_ACTION_PATH/../', '$GITHUB_ACTION_PATH/').replaceAll('}}/..', '}}');
    expect(normalise(install(merge).slice(0, 4))).toBe(normalise(install(action).slice(0, 4)));
  });

  it.skipIf(mergeHelp.code !== 0)(
    `passes only flags that \`assetline merge --help\` lists${mergeHelp.code === 0 ? '' : ' (skipped: no merge command on this branch yet)'}`,
    () => {
      const flags = flagsPassed(mergeStep.run!);
      expect(flags).toEqual(['--out', '--json', '--allow-missing']);
      for (const flag of flags) expect(mergeHelp.flags, flag).toContain(flag);
    },
  );

  describe.skipIf(!hasBash)('its merge step', () => {
    const env = (values: Record<string, string>) => ({
      OUT_DIR: 'merged',
      ALLOW_MISSING: 'true',
      WORKING_DIRECTORY: '.',
      ...values,
    });

    it('expands the globs of shards into folders, spaces kept, and merges them into out', () => {
      const cwd = tempDir();
      for (const name of ['assetline-catalog-shard-1-of-2', 'assetline-catalog-shard-2-of-2', 'odd name'])
        fs.mkdirSync(path.join(cwd, 'shards', name), { recursive: true });
      const result = runStep(mergeStep, env({ SHARDS: '  shards/assetline-*\n\nshards/odd name\n' }), cwd);
      expect(result.code).toBe(0);
      expect(result.cli?.args).toEqual([
        'merge',
        'shards/assetline-catalog-shard-1-of-2',
        'shards/assetline-catalog-shard-2-of-2',
        'shards/odd name',
        '--out',
        'merged',
        '--json',
        '--allow-missing',
      ]);
      expect(result.outputs).toEqual({ 'out-dir': './merged', 'exit-code': '0' });
    });

    it('without allow-missing, refuses missing shards through assetline; with no folder at all, exits 2 itself', () => {
      const cwd = tempDir();
      fs.mkdirSync(path.join(cwd, 'shards/a'), { recursive: true });
      const strict = runStep(mergeStep, env({ SHARDS: 'shards/*', ALLOW_MISSING: 'false', FAKE_EXIT: '2' }), cwd);
      expect(strict.cli?.args).toEqual(['merge', 'shards/a', '--out', 'merged', '--json']);
      expect(strict.outputs['exit-code']).toBe('2');
      const none = runStep(mergeStep, env({ SHARDS: 'downloads/*' }), cwd);
      expect(none.cli).toBeUndefined();
      expect(none.outputs['exit-code']).toBe('2');
      expect(none.stdout).toContain('::error title=assetline merge::no shard folder matched');
    });

    it('refuses an allow-missing that is not true or false', () => {
      const result = runStep(mergeStep, env({ SHARDS: 'shards/*', ALLOW_MISSING: 'maybe' }), tempDir());
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('input allow-missing: expected true or false, got "maybe"');
    });

    it.each([
      [0, 'false', 0],
      [2, 'false', 2],
      [4, 'false', 0],
      [4, 'true', 4],
    ])('its last step turns exit %i with fail-on-incomplete %s into %i', (code, failOnIncomplete, expected) => {
      const last = merge.runs.steps.at(-1)!;
      const result = runStep(last, { EXIT_CODE: String(code), FAIL_ON_INCOMPLETE: failOnIncomplete }, tempDir());
      expect(result.code).toBe(expected);
    });
  });
});
