/**
 * Validate a pipeline in stages and, when it is valid, expand it:
 *   1. YAML with positions (syntax, duplicate keys, alias bombs)
 *   2. schema: the whole file; each step on its own, so one broken step hides nothing else
 *   3. pipeline rules (unique ids, enterprise quota, pricing, limits)
 *   4. rows (inline, CSV, JSON, YAML)
 *   5. steps: defaults merged, templates parsed and their references checked
 *   6. step rules on literal values, once
 *   7. one pass over the rows: keys, `when:`, rules on rendered values
 * Every problem of every stage that could run is reported; nothing here throws on bad input.
 */
import path from 'node:path';
import * as z from 'zod';
import { type CheckedPipeline, resolveSettings } from './checked-pipeline.js';
import { compileSteps } from './compile-steps.js';
import { Expansion } from './expansion.js';
import type { Problem } from './problem.js';
import { ProblemCollector } from './problem-collector.js';
import { MAX_PIPELINE_BYTES, pipelineTooLarge, readPipelineText } from './read-pipeline-text.js';
import { runRowPass } from './row-pass.js';
import { pipelineVersion } from './pipeline-version.js';
import { compilePriority, rowPriorities } from './row-priority.js';
import { loadRows } from './rows/load-rows.js';
import { ImageFileInspector } from './rules/image-file-inspector.js';
import { checkPipelineRules } from './rules/pipeline-rules.js';
import { issuesToProblems } from './schema/issue-to-problems.js';
import { pipelineSchema } from './schema/pipeline-schema.js';
import { type StepInput, stepSchema } from './schema/step-schema.js';
import { runStaticPass } from './static-pass.js';
import { planStep } from './step-values.js';
import { parseYaml } from './yaml/parse-yaml.js';

export interface ValidationResult {
  /** The file as shown in messages. */
  readonly file: string;
  readonly errors: readonly Problem[];
  readonly warnings: readonly Problem[];
  /** Present exactly when there are no errors. */
  readonly expansion: Expansion | undefined;
}

export interface ValidateOptions {
  /** How the file is named in messages; defaults to the path as given. */
  readonly displayPath?: string;
}

/** The whole file except its steps, which are checked one by one. */
const shellSchema = pipelineSchema.extend({
  steps: z.array(z.unknown()).min(1, { error: 'expected at least one step' }),
});

export async function validatePipelineFile(filePath: string, options: ValidateOptions = {}): Promise<ValidationResult> {
  const file = options.displayPath ?? filePath;
  const read = await readPipelineText(filePath, file);
  if (!read.ok) return failed(file, [read.problem]);
  const { text } = read;
  return validatePipelineText(text, { file, dir: path.dirname(path.resolve(filePath)) });
}

export async function validatePipelineText(
  text: string,
  source: { file: string; dir: string },
): Promise<ValidationResult> {
  const { file, dir } = source;
  // The library takes text too; the same limit applies (validatePipelineFile checks before reading).
  const size = Buffer.byteLength(text);
  if (size > MAX_PIPELINE_BYTES) return failed(file, [pipelineTooLarge(file, size)]);
  const parsed = parseYaml(file, text);
  if (!parsed.ok) return failed(file, parsed.problems);
  const { data, locator } = parsed.value;
  const collector = new ProblemCollector();
  collector.addAll(parsed.warnings);

  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    collector.error('schema', 'expected a pipeline: a mapping with version, name and steps', locator.start());
    return finish(file, collector);
  }

  // Stage 2: schema. Steps are parsed one at a time so a broken step does not hide the others.
  const shell = shellSchema.safeParse(data, { reportInput: true });
  if (!shell.success) collector.addAll(issuesToProblems(pipelineSchema, shell.error.issues, data, locator));
  const rawSteps: readonly unknown[] = Array.isArray((data as { steps?: unknown }).steps)
    ? (data as { steps: unknown[] }).steps
    : [];
  const validSteps = new Map<number, StepInput>();
  rawSteps.forEach((raw, index) => {
    const step = stepSchema.safeParse(raw, { reportInput: true });
    if (step.success) {
      validSteps.set(index, step.data);
      return;
    }
    const issues = step.error.issues.map((issue) => ({ ...issue, path: ['steps', index, ...issue.path] }));
    collector.addAll(issuesToProblems(pipelineSchema, issues, data, locator));
    // A misspelt key is reported above; the rest of the step is still worth checking.
    const repaired = withoutUnknownKeys(raw, step.error.issues);
    const retry = repaired === undefined ? undefined : stepSchema.safeParse(repaired);
    if (retry?.success) validSteps.set(index, retry.data);
  });
  const checked = shell.success ? shell : shellSchema.safeParse(withoutBrokenSections(data, shell.error.issues));
  if (!checked.success) return finish(file, collector);
  const input = { ...checked.data, steps: [] };

  // Stage 3: the pipeline as a whole.
  const settings = resolveSettings(input, file, dir);
  checkPipelineRules(input, rawSteps, settings, locator, collector);

  // Stage 4: rows.
  const rows = await loadRows(input.rows, { file, dir, locator });
  if (!rows.ok) collector.addAll(rows.problems);
  const table = rows.ok ? rows.table : undefined;
  if (table && table.cells.length === 0) {
    collector.warning('rows-empty', 'there are no rows: nothing will be generated', locator.locate(['rows']));
  }

  // Stages 5 and 6: steps, then their literal values.
  const { steps, outputIndexChecks } = compileSteps({
    input,
    rawSteps,
    validSteps,
    columns: table?.columns ?? [],
    hasRows: input.rows !== undefined,
    knownColumns: table !== undefined,
    locator,
    sourceText: text,
    collector,
  });
  const plans = steps.map((step) => planStep(step, dir));
  const files = new ImageFileInspector();
  runStaticPass(plans, settings, files, locator, collector);
  if (!table) return finish(file, collector);

  // Stage 7: every row.
  const { rowKeys, states } = runRowPass({ plans, table, settings, outputIndexChecks, files, locator, collector });
  const priority = compilePriority(input.priority, table.columns, locator, collector);
  const rowLabel = (row: number) => (settings.rowKey === undefined ? `row ${row + 1}` : `row "${rowKeys[row]}"`);
  const priorities = priority ? rowPriorities(priority, table, rowLabel, collector) : undefined;
  if (collector.hasErrors()) return finish(file, collector);
  const pipeline: CheckedPipeline = { ...settings, steps, version: pipelineVersion(text, rows.text) };
  return finish(file, collector, new Expansion(pipeline, plans, table, rowKeys, states, priorities));
}

/**
 * Sections that later stages do not read (or read only for settings) are dropped when broken, or
 * replaced by a placeholder when required, so a bad `name:` does not hide a bad template. Problems
 * in rows, row_key, defaults or the steps list stop here: later stages depend on them.
 */
const SKIPPABLE = new Set([
  'version',
  'name',
  'description',
  'api',
  'budget',
  'concurrency',
  'pricing',
  'limits',
  'outputs',
]);
const PLACEHOLDERS: Readonly<Record<string, unknown>> = { version: 1, name: 'pipeline' };

function withoutBrokenSections(data: object, issues: readonly z.core.$ZodIssue[]): object | undefined {
  const repaired: Record<string, unknown> = { ...data };
  for (const issue of issues) {
    const keys = issue.path.length === 0 && issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0])];
    for (const key of keys) {
      if (issue.path.length > 0 && !SKIPPABLE.has(key)) return undefined;
      delete repaired[key];
      if (key in PLACEHOLDERS) repaired[key] = PLACEHOLDERS[key];
    }
  }
  return repaired;
}

/** A copy of `value` without the keys zod did not recognise, when those are its only issues. */
function withoutUnknownKeys(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  if (!issues.every((issue) => issue.code === 'unrecognized_keys')) return undefined;
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const issue of issues) {
    let target: unknown = copy;
    for (const segment of issue.path) target = (target as Record<PropertyKey, unknown>)[segment as string];
    if (issue.code === 'unrecognized_keys' && typeof target === 'object' && target !== null) {
      for (const key of issue.keys) delete (target as Record<string, unknown>)[key];
    }
  }
  return copy;
}

function finish(file: string, collector: ProblemCollector, expansion?: Expansion): ValidationResult {
  const problems = collector.problems();
  const errors = problems.filter((problem) => problem.severity === 'error');
  return {
    file,
    errors,
    warnings: problems.filter((problem) => problem.severity === 'warning'),
    expansion: errors.length === 0 ? expansion : undefined,
  };
}

function failed(file: string, problems: readonly Problem[]): ValidationResult {
  return {
    file,
    errors: problems.filter((problem) => problem.severity === 'error'),
    warnings: problems.filter((problem) => problem.severity === 'warning'),
    expansion: undefined,
  };
}
