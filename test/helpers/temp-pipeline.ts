/** Write a pipeline (and the files it reads) into a fresh temp folder and validate it. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatProblem } from '../../src/pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { tempDir } from './temp-dir.js';

export { tempDir } from './temp-dir.js';

export async function validateYaml(
  yaml: string,
  files: Readonly<Record<string, string | Uint8Array>> = {},
): Promise<ValidationResult> {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  writeFileSync(path.join(dir, 'pipeline.yaml'), yaml);
  return validatePipelineFile(path.join(dir, 'pipeline.yaml'), { displayPath: 'pipeline.yaml' });
}

/** The problems as the CLI prints them, for readable assertions. */
export function lines(result: ValidationResult): string[] {
  return [...result.errors, ...result.warnings].map(formatProblem);
}

/** A minimal valid pipeline around the given steps (YAML text, indented as list items). */
export function pipelineWith(steps: string, extra = ''): string {
  return `version: 1\nname: t\n${extra}steps:\n${steps}`;
}

/** The smallest valid PNG (1x1, transparent). */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
