/**
 * `assetline validate <pipeline.yaml>...`: every problem of every file, as file:line:col, then one
 * summary line per file. Exit 0 when all are valid (warnings allowed), 2 otherwise. Nothing is sent.
 */
import path from 'node:path';
import type { CommandIo } from '../cli/io.js';
import { parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { compareProblems, formatProblem } from '../pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { validationJson } from '../pipeline/validation-json.js';

const HELP = `Usage: assetline validate <pipeline.yaml>... [--json]

Checks each pipeline (YAML, schema, models, durations, templates, rows, local images, limits on
rendered values) without sending anything. Prints every problem as file:line:col: message.

Options:
  --json   print one JSON object: { valid, files: [{ file, valid, errors, warnings, counts }] }
Exit codes: 0 valid (warnings allowed), 2 invalid or usage error.`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('validate', {
    args: [...args],
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError(`validate: expected at least one pipeline file\n\n${HELP}`);

  const results: ValidationResult[] = [];
  for (const file of positionals) {
    results.push(await validatePipelineFile(path.resolve(io.cwd, file), { displayPath: file }));
  }
  const json = validationJson(results);
  if (values.json) io.stdout(`${JSON.stringify(json, null, 2)}\n`);
  else for (const result of results) io.stdout(toText(result));
  return json.valid ? EXIT.ok : EXIT.invalidPipeline;
}

function toText(result: ValidationResult): string {
  const lines = [...result.errors, ...result.warnings].sort(compareProblems).map(formatProblem);
  lines.push(summary(result));
  return `${lines.join('\n')}\n`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function summary(result: ValidationResult): string {
  const warnings = result.warnings.length > 0 ? `, ${plural(result.warnings.length, 'warning')}` : '';
  if (!result.expansion) return `${result.file}: invalid: ${plural(result.errors.length, 'error')}${warnings}`;
  const { rows, steps, instances, skippedWhen, skippedUpstream } = result.expansion.counts;
  const skipped = skippedWhen + skippedUpstream;
  const skips = skipped > 0 ? ` (${skipped} skipped by when:)` : '';
  return `${result.file}: valid: ${plural(rows, 'row')} x ${plural(steps, 'step')} = ${plural(instances, 'step instance')}${skips}${warnings}`;
}
