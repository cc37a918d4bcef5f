/**
 * GitHub Actions: workflow commands escaped as the runner reads them, failures grouped so the
 * run page's 10 annotations say the most, and a real `run` under GITHUB_ACTIONS leaving its
 * annotations on stderr (stdout keeps the --json object) and its report in the job summary.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/cli/io.js';
import { run } from '../../src/commands/run.js';
import { summarize } from '../../src/manifest/manifest-summary.js';
import { runAnnotations, warningAnnotations, workflowCommand } from '../../src/report/github-actions.js';
import { fixtureManifest, fixtureStep } from '../helpers/manifest-fixture.js';
import { tempDir } from '../helpers/temp-pipeline.js';

describe('workflowCommand', () => {
  it('escapes data and properties as the Actions runner expects', () => {
    expect(
      workflowCommand({
        level: 'error',
        title: 'step: hero, failed',
        message: '100% refused\nrow: A, B',
        position: { file: 'pipelines/a,b.yaml', line: 12, col: 5 },
      }),
    ).toBe('::error file=pipelines/a%2Cb.yaml,line=12,col=5,title=step%3A hero%2C failed::100%25 refused%0Arow: A, B');
  });
});

describe('runAnnotations', () => {
  const failing = (row: number, step: string, code: string) => ({
    key: `R${row}`,
    folder: `R${row}`,
    steps: [
      fixtureStep({
        step,
        status: 'failed' as const,
        error: { kind: 'permanent', status: 400, code, message: `${code} message`, request_id: null },
      }),
    ],
  });

  it('groups failures by step and error code, most rows first, at the step in the pipeline file', () => {
    const rows = [
      failing(1, 'big', 'invalid_scale'),
      ...Array.from({ length: 7 }, (_, i) => failing(10 + i, 'hero', 'content_policy')),
    ];
    const annotations = runAnnotations(summarize(fixtureManifest(rows)), (step) =>
      step === 'hero' ? { file: 'pipeline.yaml', line: 9, col: 5 } : undefined,
    );
    expect(annotations.map(workflowCommand)).toEqual([
      '::error file=pipeline.yaml,line=9,col=5,title=assetline%3A spring-shoes%3A step hero failed::7 rows failed with content_policy (HTTP 400): content_policy message%0ARows: R10, R11, R12, R13, R14 and 2 more',
      '::error title=assetline%3A spring-shoes%3A step big failed::1 row failed with invalid_scale (HTTP 400): invalid_scale message%0ARows: R1',
    ]);
  });

  it('keeps to the 10 errors GitHub shows, and warns of deferred steps and possible double charges', () => {
    const rows = Array.from({ length: 12 }, (_, i) => failing(i, `s${i}`, 'bad'));
    const errors = runAnnotations(summarize(fixtureManifest(rows)), () => undefined);
    expect(errors).toHaveLength(10);
    expect(errors[9]?.message).toBe('3 more kinds of failure: see the job summary or report.html');

    const warnings = runAnnotations(summarize(fixtureManifest()), () => undefined).filter((a) => a.level === 'warning');
    expect(warnings.map((a) => a.message)).toEqual([
      '1 step was not sent (deferred: budget); the next run resumes them',
      "1 step was sent again after a request got no answer: check the credits used against the service's records",
    ]);
  });

  it('keeps plan warnings to 9 and sums up the rest', () => {
    const annotations = warningAnnotations(Array.from({ length: 12 }, (_, i) => ({ message: `w${i}` })));
    expect(annotations).toHaveLength(10);
    expect(annotations[9]?.message).toBe('3 more warnings: run "assetline plan" to see them');
  });
});

describe('assetline run under GitHub Actions', () => {
  it('annotates the failed step at its line, appends the report to the job summary, and keeps --json on stdout', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'pipeline.yaml'),
      `version: 1
name: gha
rows:
  - { sku: A1, scale: 5 }
  - { sku: B2, scale: 2 }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe \${{ row.sku }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: "\${{ row.scale }}" }
`,
    );
    const summaryFile = path.join(dir, 'summary.md');
    writeFileSync(summaryFile, '# earlier step\n');
    let stdout = '';
    let stderr = '';
    const io: CommandIo = {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
      signal: new AbortController().signal,
      stderrIsTTY: false,
    };
    const code = await run(['pipeline.yaml', '--sandbox', '--json', '--log-level', 'error'], io);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'partial', exit_code: 1, steps: { done: 3, failed: 1 } });
    const commands = stderr.split('\n').filter((line) => line.startsWith('::'));
    expect(commands).toEqual([
      expect.stringMatching(
        /^::error file=pipeline\.yaml,line=10,col=5,title=assetline%3A gha%3A step big failed::1 row failed with invalid_scale \(HTTP 400\): .+%0ARows: A1$/,
      ),
      expect.stringMatching(/^::warning title=assetline plan::no budget: set budget\.max_credits/),
    ]);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary.startsWith('# earlier step\n## assetline: gha: partial (exit 1)\n')).toBe(true);
    expect(summary).toContain('| A1 | big | upscale | invalid_scale (HTTP 400) |');
  });

  it('on a refused plan, says so in an annotation and in the job summary, and sends nothing', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'pipeline.yaml'),
      `version: 1
name: too-dear
budget: { max_credits: 50 }
rows: [{ sku: A1 }]
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "shoe", width: 256, height: 256 }
`,
    );
    const summaryFile = path.join(dir, 'summary.md');
    let stderr = '';
    const io: CommandIo = {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
      signal: new AbortController().signal,
      stderrIsTTY: false,
    };
    expect(await run(['pipeline.yaml', '--sandbox', '--log-level', 'error'], io)).toBe(3);
    expect(stderr).toMatch(
      /^::error file=pipeline\.yaml,title=assetline%3A too-dear%3A refused by the plan::Nothing was sent\. /m,
    );
    expect(readFileSync(summaryFile, 'utf8')).toMatch(
      /^## assetline: too-dear: refused by the plan \(exit 3\)\n\nNothing was sent\./,
    );
  });
});
