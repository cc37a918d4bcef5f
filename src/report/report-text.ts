/**
 * The cost report as a person reads it in a terminal or a cron mail: headline, cost against the
 * plan, then what needs attention. Long tables are cut to their largest lines; the HTML report
 * and `report --md` have them whole.
 */
import type { CostLine, RunSummary, StepRef } from '../manifest/manifest-summary.js';
import { textTable } from '../text/text-table.js';
import { count, duration, formatNumber, where } from './format.js';
import { headlineFigures, lossText, statusLine } from './summary-text.js';

const ROWS_SHOWN = 10;
const ISSUES_SHOWN = 20;

export function reportText(summary: RunSummary, notes: readonly string[] = []): string {
  const { manifest, credits } = summary;
  const out: string[] = [];
  out.push(
    `${manifest.pipeline}: ${manifest.status}${manifest.exit_code === null ? '' : ` (exit ${manifest.exit_code})`}: ${statusLine(manifest)}`,
  );
  const figures = [
    ['run:', `${manifest.run_id}${manifest.sandbox ? ' (sandbox)' : ''}, ${duration(manifest.duration_ms)}`],
    ...notes.map((note) => ['note:', note]),
    ...headlineFigures(summary).map(([label, value]) => [`${label.toLowerCase()}:`, value]),
  ];
  out.push(textTable(figures, [false, false]));
  out.push('', costTable('model', credits.byModel));
  out.push('', costTable('step', credits.byStep));
  if (credits.byRow.length > 1) {
    const title =
      credits.byRow.length > ROWS_SHOWN
        ? `row (the ${ROWS_SHOWN} costliest of ${formatNumber(credits.byRow.length)})`
        : 'row';
    out.push('', costTable(title, credits.byRow.slice(0, ROWS_SHOWN)));
  }
  issues(out, `failed (${formatNumber(summary.failures.length)})`, summary.failures, (ref) => {
    const error = ref.step.error;
    return `${where(ref.row, ref.step)}: ${error ? `${error.code}${error.status === null ? '' : ` (HTTP ${error.status})`}: ${error.message}` : 'failed'}`;
  });
  issues(
    out,
    `may have been charged twice (${formatNumber(summary.ambiguous.length)}): sent again after no answer`,
    summary.ambiguous,
    (ref) =>
      `${where(ref.row, ref.step)}: ${count(ref.step.ambiguous_attempts, 'unanswered attempt')}${ref.step.request_id ? `, request ${ref.step.request_id}` : ''}`,
  );
  issues(
    out,
    `lost (${formatNumber(summary.credits.lost)} credits paid for results never saved)`,
    summary.lost,
    (ref) => `${where(ref.row, ref.step)}: ${lossText(ref.step)}`,
  );
  issues(
    out,
    `paid results of abandoned video jobs (${formatNumber(summary.extraFiles.length)})`,
    summary.extraFiles,
    (ref) => `${where(ref.row, ref.step)}: ${ref.step.extra_files.map((file) => file.path).join(', ')}`,
  );
  if (summary.reasons.size > 0) {
    out.push('', 'not run:');
    for (const [reason, howMany] of summary.reasons) out.push(`  ${formatNumber(howMany)} ${reason}`);
  }
  return `${out.join('\n')}\n`;
}

function costTable(title: string, lines: readonly CostLine[]): string {
  const rows = [
    [`by ${title}`, 'planned', 'used'],
    ...lines.map((line) => [line.name, formatNumber(line.planned), formatNumber(line.used)]),
  ];
  return textTable(rows, [false, true, true]);
}

function issues(out: string[], title: string, refs: readonly StepRef[], line: (ref: StepRef) => string): void {
  if (refs.length === 0) return;
  out.push('', `${title}:`);
  for (const ref of refs.slice(0, ISSUES_SHOWN)) out.push(`  ${line(ref)}`);
  if (refs.length > ISSUES_SHOWN)
    out.push(`  ... and ${formatNumber(refs.length - ISSUES_SHOWN)} more (see report.html)`);
}
