/**
 * What `run` leaves on a GitHub Actions run page: annotations for failed steps and for plan and
 * validation warnings (on stderr, so `--json` keeps stdout to its one object; the runner reads
 * workflow commands from both), and the Markdown report appended to the job summary.
 */
import type { CommandIo } from '../cli/io.js';
import type { RunSummary } from '../manifest/manifest-summary.js';
import type { CheckedPipeline } from '../pipeline/checked-pipeline.js';
import { formatProblem, type Problem } from '../pipeline/problem.js';
import type { Plan } from '../plan/plan-model.js';
import { planText } from '../plan/plan-text.js';
import {
  type Annotation,
  appendStepSummary,
  isGitHubActions,
  runAnnotations,
  warningAnnotations,
  workflowCommand,
} from './github-actions.js';
import { reportMarkdown } from './report-markdown.js';

export interface RunForGitHub {
  readonly pipeline: CheckedPipeline;
  readonly validationWarnings: readonly Problem[];
  readonly plan: Plan;
  /** The run's report; undefined when the plan was refused and nothing ran. */
  readonly summary: RunSummary | undefined;
  readonly exitCode: number;
}

export async function publishToGitHub(io: CommandIo, run: RunForGitHub): Promise<void> {
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (!isGitHubActions(io.env) && !summaryFile) return;
  const shown = new Set(run.validationWarnings.map(formatProblem));
  const warnings = [
    ...run.validationWarnings.map((problem) => ({
      message: problem.message,
      position: { file: problem.location.file, ...('line' in problem.location && problem.location) },
    })),
    ...run.plan.warnings.filter((warning) => !shown.has(warning)).map((message) => ({ message })),
  ];
  const annotations: Annotation[] = warningAnnotations(warnings);
  let markdown: string;
  const { summary } = run;
  if (summary) {
    const positions = new Map(run.pipeline.steps.map((step) => [step.id, step.position]));
    annotations.unshift(...runAnnotations(summary, (stepId) => positions.get(stepId)));
    markdown = reportMarkdown(summary);
  } else {
    annotations.unshift({
      level: 'error',
      title: `assetline: ${run.pipeline.name}: refused by the plan`,
      message: `Nothing was sent. ${run.plan.reasons.join(' ')}`,
      position: { file: run.pipeline.file },
    });
    markdown = `## assetline: ${run.pipeline.name}: refused by the plan (exit ${run.exitCode})\n\nNothing was sent.\n\n\`\`\`text\n${planText(run.plan)}\`\`\`\n`;
  }
  if (isGitHubActions(io.env) && annotations.length > 0) io.stderr(`${annotations.map(workflowCommand).join('\n')}\n`);
  if (summaryFile) await appendStepSummary(summaryFile, markdown);
}
