/**
 * What `merge` leaves on a GitHub Actions run page: the merged report in the job summary, one for
 * the whole run however many shards made it. Failed steps are not annotated again: each shard's
 * job already did, at their place in the pipeline file. Missing shards are a warning.
 */
import type { CommandIo } from '../cli/io.js';
import type { RunSummary } from '../manifest/manifest-summary.js';
import { appendStepSummary, isGitHubActions, workflowCommand } from './github-actions.js';
import { reportMarkdown } from './report-markdown.js';

export async function publishMerge(io: CommandIo, summary: RunSummary, notes: readonly string[]): Promise<void> {
  const missing = summary.manifest.missing_shards ?? [];
  if (isGitHubActions(io.env) && missing.length > 0)
    io.stderr(
      `${workflowCommand({
        level: 'warning',
        title: `assetline: ${summary.manifest.pipeline}: shards missing`,
        message: `Merged without ${missing.join(', ')}: their rows are not in the merged folder. Run them, then merge again.`,
      })}\n`,
    );
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) await appendStepSummary(summaryFile, reportMarkdown(summary, notes));
}
