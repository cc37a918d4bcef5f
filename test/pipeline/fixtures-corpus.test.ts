/**
 * The corpus of invalid pipelines: each fixture states, in its own comments, every error (and any
 * warning) validation must report, with its position. A fixture is a .yaml file, or a folder with
 * a pipeline.yaml and the files it reads. Nothing else may be reported: no more, no fewer errors.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/pipeline/problem.js';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { matches, readExpectations } from '../helpers/fixture-expectations.js';

const CORPUS = path.join(import.meta.dirname, '..', 'fixtures', 'invalid');

function fixtures(): { name: string; file: string }[] {
  return readdirSync(CORPUS)
    .map((name) => {
      const full = path.join(CORPUS, name);
      return statSync(full).isDirectory() ? { name, file: path.join(full, 'pipeline.yaml') } : { name, file: full };
    })
    .filter(({ file }) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('invalid pipeline corpus', () => {
  const all = fixtures();

  it('has at least 40 fixtures', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
  });

  it.each(all)('$name', async ({ file }) => {
    const expectations = readExpectations(readFileSync(file, 'utf8'));
    expect(expectations.length, 'a fixture states what it expects').toBeGreaterThan(0);
    const shown = 'pipeline.yaml';
    const result = await validatePipelineFile(file, { displayPath: shown });
    const problems = [...result.errors, ...result.warnings];
    const report = problems.map(formatProblem).join('\n');

    for (const expectation of expectations) {
      const found = problems.some((problem) => matches(problem, expectation, shown));
      expect(
        found,
        `expected ${expectation.severity} at ${expectation.where} containing "${expectation.text}"; got:\n${report}`,
      ).toBe(true);
    }
    const expectedErrors = expectations.filter((e) => e.severity === 'error').length;
    expect(result.errors.length, `unexpected errors:\n${report}`).toBe(expectedErrors);
    expect(result.expansion).toBeUndefined();
  });
});
