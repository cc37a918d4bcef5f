/** The built CLI, spawned as a user runs it: output streams and exit codes. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function assetline(...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('assetline validate', () => {
  it('passes the example pipelines with exit 0', () => {
    const { code, stdout } = assetline(
      'validate',
      'pipelines/demo.yaml',
      'pipelines/product-shoot.yaml',
      'pipelines/social-video.yaml',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'pipelines/demo.yaml: valid: 1 row x 6 steps = 6 step instances',
        'pipelines/product-shoot.yaml: valid: 24 rows x 3 steps = 72 step instances',
        'pipelines/social-video.yaml: valid: 6 rows x 3 steps = 17 step instances (1 skipped by when:)',
        '',
      ].join('\n'),
    );
  });

  it('prints counts in snake_case with --json, as every JSON assetline prints', () => {
    const { code, stdout } = assetline('validate', '--json', 'pipelines/social-video.yaml');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { files: { counts: unknown }[] };
    expect(report.files[0]?.counts).toEqual({
      rows: 6,
      steps: 3,
      instances: 17,
      skipped_when: 1,
      skipped_upstream: 0,
    });
  });

  it('prints every problem as file:line:col and exits 2', () => {
    const { code, stdout } = assetline('validate', 'test/fixtures/invalid/unknown-model.yaml');
    expect(code).toBe(2);
    expect(stdout.split('\n')).toEqual([
      'test/fixtures/invalid/unknown-model.yaml:8:14: step "hero", generate.model: unknown generate model "z-image-turbo2"; did you mean "z-image-turbo"?',
      'test/fixtures/invalid/unknown-model.yaml: invalid: 1 error',
      '',
    ]);
  });

  it('fails the whole command when one of several files is invalid', () => {
    const { code, stdout } = assetline('validate', 'pipelines/demo.yaml', 'test/fixtures/invalid/unknown-model.yaml');
    expect(code).toBe(2);
    expect(stdout).toContain('pipelines/demo.yaml: valid');
  });

  it('prints JSON with --json', () => {
    const { code, stdout } = assetline('validate', '--json', 'test/fixtures/invalid/unknown-model.yaml');
    expect(code).toBe(2);
    const report = JSON.parse(stdout) as {
      valid: boolean;
      files: { errors: { line: number; col: number; code: string }[] }[];
    };
    expect(report.valid).toBe(false);
    expect(report.files[0]?.errors[0]).toMatchObject({ line: 8, col: 14, code: 'model-for-operation' });
  });

  it('is a usage error (exit 2) without files or with an unknown option', () => {
    expect(assetline('validate')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('expected at least one pipeline file'),
    });
    expect(assetline('validate', '--jsno', 'x.yaml')).toMatchObject({
      code: 2,
      stderr:
        'assetline: unknown option --jsno for validate; did you mean --json? (run "assetline validate --help" for its options)\n',
    });
  });

  it('says when a file does not exist', () => {
    expect(assetline('validate', 'nope.yaml')).toMatchObject({
      code: 2,
      stdout: expect.stringContaining('nope.yaml: cannot read the pipeline: no such file'),
    });
  });
});

describe('assetline schema', () => {
  it.each(['pipeline', 'manifest'])('prints the checked-in %s schema', (name) => {
    const { code, stdout } = assetline('schema', name);
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(path.join(ROOT, `schemas/${name}.schema.json`), 'utf8'));
  });

  it('refuses an unknown schema name', () => {
    expect(assetline('schema', 'recipe')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('expected one of pipeline'),
    });
  });
});

describe('assetline', () => {
  it('lists commands with --help and refuses unknown ones', () => {
    expect(assetline('--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('validate <pipeline.yaml>') });
    expect(assetline('frobnicate')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command "frobnicate"'),
    });
  });

  const COMMANDS = ['validate', 'plan', 'run', 'report', 'merge', 'schema', 'sandbox'];

  it.each(COMMANDS)('%s has --help (exit 0)', (command) => {
    expect(assetline(command, '--help')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`Usage: assetline ${command}`),
    });
  });

  it.each(COMMANDS)(
    '%s names an unknown option with the closest one, and where the options are (exit 2)',
    (command) => {
      const { code, stderr } = assetline(command, '--helpp');
      expect(code).toBe(2);
      expect(stderr).toBe(
        `assetline: unknown option --helpp for ${command}; did you mean --help? (run "assetline ${command} --help" for its options)\n`,
      );
    },
  );

  it("says what a misspelt run flag was meant to be, without Node's advice on positionals", () => {
    const { code, stderr } = assetline('run', 'x.yaml', '--sandbx');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown option --sandbx for run; did you mean --sandbox?');
    expect(stderr).not.toContain('positional');
  });

  it('prints its version', () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(assetline('--version')).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});
