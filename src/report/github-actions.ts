/**
 * GitHub Actions integration: workflow-command annotations (::error, ::warning) that show on the
 * run page and in the pipeline file, and the Markdown report appended to the job summary.
 *
 * GitHub shows at most 10 errors and 10 warnings per step, so failures are grouped by step and
 * error code ("hero: 37 rows failed with content_policy_violation"), most rows first.
 */
import { appendFile } from 'node:fs/promises';
import type { RunSummary, StepRef } from '../manifest/manifest-summary.js';
import type { FilePosition } from '../pipeline/problem.js';
import { count, formatNumber } from './format.js';

/** Annotations past these are summed up in one more line; GitHub would drop them anyway. */
const ERRORS_SHOWN = 9;
const WARNINGS_SHOWN = 9;

export interface Annotation {
  readonly level: 'error' | 'warning' | 'notice';
  readonly title: string;
  readonly message: string;
  readonly position?: Partial<FilePosition> & { readonly file: string };
}

export function isGitHubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** One `::level file=..,line=..,title=..::message` line, escaped as the runner expects. */
export function workflowCommand(annotation: Annotation): string {
  const properties: string[] = [];
  const at = annotation.position;
  if (at) {
    properties.push(`file=${escapeProperty(at.file)}`);
    if (at.line !== undefined) properties.push(`line=${at.line}`);
    if (at.col !== undefined) properties.push(`col=${at.col}`);
  }
  properties.push(`title=${escapeProperty(annotation.title)}`);
  return `::${annotation.level} ${properties.join(',')}::${escapeData(annotation.message)}`;
}

/** Failed steps, grouped by step and error code; where a step is in the file, the annotation points there. */
export function runAnnotations(
  summary: RunSummary,
  stepPosition: (stepId: string) => (Partial<FilePosition> & { file: string }) | undefined,
): Annotation[] {
  const pipeline = summary.manifest.pipeline;
  const groups = new Map<string, StepRef[]>();
  for (const ref of summary.failures) {
    const key = `${ref.step.step}\u0000${ref.step.error?.code ?? 'failed'}`;
    const group = groups.get(key);
    if (group) group.push(ref);
    else groups.set(key, [ref]);
  }
  const errors = [...groups.values()]
    .sort((a, b) => b.length - a.length)
    .map((refs): Annotation => {
      const first = refs[0] as StepRef;
      const error = first.step.error;
      const rows = refs.slice(0, 5).map((ref) => ref.row);
      const more = refs.length > rows.length ? ` and ${formatNumber(refs.length - rows.length)} more` : '';
      const position = stepPosition(first.step.step);
      return {
        level: 'error',
        title: `assetline: ${pipeline}: step ${first.step.step} failed`,
        message:
          `${refs.length === 1 ? '1 row' : `${formatNumber(refs.length)} rows`} failed with ${error?.code ?? 'an error'}` +
          `${error?.status ? ` (HTTP ${error.status})` : ''}: ${error?.message ?? ''}\nRows: ${rows.join(', ')}${more}`,
        ...(position && { position }),
      };
    });
  const annotations = errors.slice(0, ERRORS_SHOWN);
  if (errors.length > ERRORS_SHOWN)
    annotations.push({
      level: 'error',
      title: `assetline: ${pipeline}`,
      message: `${formatNumber(errors.length - ERRORS_SHOWN)} more kinds of failure: see the job summary or report.html`,
    });
  const deferred = summary.counts.deferred;
  if (deferred > 0)
    annotations.push({
      level: 'warning',
      title: `assetline: ${pipeline}: stopped early`,
      message: `${count(deferred, 'step')} ${deferred === 1 ? 'was' : 'were'} not sent (${[...summary.reasons.keys()].filter((r) => r.startsWith('deferred')).join(', ')}); the next run resumes them`,
    });
  if (summary.ambiguous.length > 0)
    annotations.push({
      level: 'warning',
      title: `assetline: ${pipeline}: possible double charges`,
      message: `${count(summary.ambiguous.length, 'step')} ${summary.ambiguous.length === 1 ? 'was' : 'were'} sent again after a request got no answer: check the credits used against the service's records`,
    });
  return annotations;
}

/** Plan and validation warnings, each at its place in the pipeline file where it has one. */
export function warningAnnotations(
  warnings: readonly { message: string; position?: Partial<FilePosition> & { file: string } }[],
): Annotation[] {
  const annotations: Annotation[] = warnings.slice(0, WARNINGS_SHOWN).map((warning) => ({
    level: 'warning',
    title: 'assetline plan',
    message: warning.message,
    ...(warning.position && { position: warning.position }),
  }));
  if (warnings.length > WARNINGS_SHOWN)
    annotations.push({
      level: 'warning',
      title: 'assetline plan',
      message: `${formatNumber(warnings.length - WARNINGS_SHOWN)} more warnings: run "assetline plan" to see them`,
    });
  return annotations;
}

export async function appendStepSummary(file: string, markdown: string): Promise<void> {
  await appendFile(file, `${markdown}\n`);
}

// The runner's own escaping (actions/toolkit, command.ts): data keeps ':' and ','; properties do not.
function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}
