/**
 * Turns zod issues into positioned problems that read like a person wrote them:
 * "step "hero", generate.num_images: expected an integer, got the text "two"", with the line and
 * column of the offending node, one problem per unknown key, and "did you mean" where it helps.
 */
import type * as z from 'zod';
import { closestMatch, didYouMean } from '../did-you-mean.js';
import type { Problem } from '../problem.js';
import type { DataPath, YamlLocator } from '../yaml/yaml-locator.js';
import { allowedKeysAt } from './schema-keys.js';
import { describeInput } from './value-schemas.js';

type Issue = z.core.$ZodIssue;

export function issuesToProblems(
  schema: z.ZodType,
  issues: readonly Issue[],
  data: unknown,
  locator: YamlLocator,
): Problem[] {
  const problems: Problem[] = [];
  for (const issue of flattenUnions(issues, [])) {
    const path = issue.path as DataPath;
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(schema, path);
      for (const key of issue.keys) {
        const where = labelPath(path, data);
        problems.push({
          severity: 'error',
          code: 'schema-unknown-field',
          message: `unknown field "${key}"${where ? ` in ${where}` : ''}${didYouMean(key, allowed) || elsewhere(schema, path, key)}`,
          location: locator.locate([...path, key], { key: true }),
        });
      }
      continue;
    }
    const label = labelPath(path, data);
    const missing = (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined;
    problems.push({
      severity: 'error',
      code: missing ? 'schema-missing-field' : 'schema',
      message: label ? `${label}: ${describeIssue(issue, missing)}` : describeIssue(issue, missing),
      location: locator.locate(path),
    });
  }
  return problems;
}

/**
 * A top-level key that belongs one level down ("retries:" for "defaults: { retries: }"): say where.
 */
function elsewhere(schema: z.ZodType, path: DataPath, key: string): string {
  if (path.length > 0) return '';
  for (const section of ['defaults', 'api', 'budget', 'limits', 'outputs']) {
    const keys = allowedKeysAt(schema, [section]);
    const match = keys.includes(key) ? key : closestMatch(key, keys);
    if (match) return `; did you mean ${section}.${match}?`;
  }
  return '';
}

/**
 * A union reports every branch's complaints. When the value's type matched exactly one branch
 * and that branch objects to something inside the value (a list given where "list or { file }" is
 * expected, with a bad row), those inner issues are the real ones. When the objection is to the
 * value itself ("two" where "a number or a template" is expected), the union's own message,
 * "expected X or Y, got Z", says it best.
 */
function flattenUnions(issues: readonly Issue[], prefix: readonly PropertyKey[]): Issue[] {
  const out: Issue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length > 0) {
      const matching = issue.errors.filter(
        (branch) => !branch.some((inner) => inner.path.length === 0 && isTypeMismatch(inner)),
      );
      const inner = matching.length === 1 ? matching[0] : undefined;
      const aboutTheValue = inner?.some((innerIssue) => innerIssue.path.length === 0) ?? true;
      if (inner && (!aboutTheValue || isGeneric(issue.message))) {
        out.push(...flattenUnions(inner, path));
        continue;
      }
    }
    out.push({ ...issue, path } as Issue);
  }
  return out;
}

function isTypeMismatch(issue: Issue): boolean {
  return issue.code === 'invalid_type' || issue.code === 'invalid_union';
}

function describeIssue(issue: Issue, missing: boolean): string {
  const got = describeInput(issue.input);
  if (missing && issue.code === 'invalid_value')
    return `missing required field (expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')})`;
  // Messages we wrote into the schema say it in the field's own terms.
  if (!isGeneric(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (missing) return `missing required field (expected ${article(issue.expected)})`;
      return `expected ${article(issue.expected)}, got ${got}`;
    case 'invalid_value': {
      const values = issue.values.map((value) => JSON.stringify(value));
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, issue.values.map(String)) : '';
      const expected = values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
      return `expected ${expected}, got ${got}${hint}`;
    }
    case 'too_small':
      if (issue.origin === 'array') return issue.message;
      return `expected ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}, got ${got}`;
    case 'too_big':
      return `expected ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}, got ${got}`;
    case 'invalid_format':
      if (issue.format === 'url') return `expected an http(s) URL, got ${got}`;
      if (issue.format === 'starts_with') return `expected a path starting with "/", got ${got}`;
      return isGeneric(issue.message) ? `expected ${issue.format}, got ${got}` : issue.message;
    default:
      return issue.message;
  }
}

/** zod's own wording; ours never starts like this. */
function isGeneric(message: string): boolean {
  return message.startsWith('Invalid') || message.startsWith('Too ') || message.startsWith('Unrecognized');
}

function article(expected: string): string {
  switch (expected) {
    case 'object':
    case 'record':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'int':
      return 'an integer';
    case 'string':
      return 'a text';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return expected;
  }
}

/**
 * A path as a person reads it: `step "hero", generate.num_images`, `api.plan`, `rows[3].sku`
 * (rows counted from 1, like the rows of a sheet).
 */
export function labelPath(path: DataPath, data: unknown): string {
  if (path.length === 0) return '';
  const [head, index, ...rest] = path;
  // A rows file is a list: its paths start at the row.
  if (typeof head === 'number')
    return index === undefined ? `row ${head + 1}` : `row ${head + 1}, ${dotted(path.slice(1))}`;
  if (head === 'steps' && typeof index === 'number') {
    const id = stepIdAt(data, index);
    const step = id ? `step "${id}"` : `step ${index + 1}`;
    return rest.length > 0 ? `${step}, ${dotted(rest)}` : step;
  }
  if (head === 'rows' && typeof index === 'number') {
    return rest.length > 0 ? `row ${index + 1}, ${dotted(rest)}` : `row ${index + 1}`;
  }
  return dotted(path);
}

function dotted(path: DataPath): string {
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i > 0 ? '.' : ''}${String(segment)}`))
    .join('');
}

function stepIdAt(data: unknown, index: number): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const steps = (data as { steps?: unknown }).steps;
  if (!Array.isArray(steps)) return undefined;
  const step: unknown = steps[index];
  if (typeof step !== 'object' || step === null) return undefined;
  const id = (step as { id?: unknown }).id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}
