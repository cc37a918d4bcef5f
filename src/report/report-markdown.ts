/**
 * The cost report in Markdown: for `report --md`, a cron mail, and the GitHub Actions job summary
 * (which takes at most 1 MiB per step, so long lists are cut and point to report.html).
 */
import type { CostLine, RunSummary, StepRef } from '../manifest/manifest-summary.js';
import { capitalize, duration, formatNumber } from './format.js';
import { headlineFigures, lossText, statusLine } from './summary-text.js';

const ROWS_SHOWN = 50;
const ISSUES_SHOWN = 50;

export function reportMarkdown(summary: RunSummary, notes: readonly string[] = []): string {
  const { manifest, credits } = summary;
  const out: string[] = [];
  const exit = manifest.exit_code === null ? '' : ` (exit ${manifest.exit_code})`;
  out.push(`## assetline: ${md(manifest.pipeline)}: ${manifest.status}${exit}`, '');
  out.push(
    `${capitalize(statusLine(manifest))}. Run \`${md(manifest.run_id)}\`, ${duration(manifest.duration_ms)}${manifest.sandbox ? ', against the sandbox' : ''}.`,
    '',
  );
  for (const note of notes) out.push(`> ${md(note)}`, '');
  out.push('| | |', '|---|---|');
  for (const [label, value] of headlineFigures(summary)) out.push(`| ${label} | ${md(value)} |`);
  out.push('');
  refTable(
    out,
    `Failed (${formatNumber(summary.failures.length)})`,
    summary.failures,
    ['Row', 'Step', 'Model', 'Error', 'Message'],
    (ref) => {
      const error = ref.step.error;
      return [
        ref.row,
        ref.step.step,
        ref.step.model ?? ref.step.operation,
        error ? `${error.code}${error.status === null ? '' : ` (HTTP ${error.status})`}` : '',
        error?.message ?? '',
      ];
    },
  );
  refTable(
    out,
    `May have been charged twice (${formatNumber(summary.ambiguous.length)})`,
    summary.ambiguous,
    ['Row', 'Step', 'Unanswered attempts', 'Request'],
    (ref) => [ref.row, ref.step.step, formatNumber(ref.step.ambiguous_attempts), ref.step.request_id ?? ''],
  );
  refTable(
    out,
    `Lost: ${formatNumber(summary.credits.lost)} credits paid for results never saved`,
    summary.lost,
    ['Row', 'Step', 'Credits lost', 'Why'],
    (ref) => [ref.row, ref.step.step, formatNumber(ref.step.credits.lost ?? 0), lossText(ref.step)],
  );
  refTable(
    out,
    `Paid results of abandoned video jobs (${formatNumber(summary.extraFiles.length)})`,
    summary.extraFiles,
    ['Row', 'Step', 'Files'],
    (ref) => [ref.row, ref.step.step, ref.step.extra_files.map((file) => file.path).join(', ')],
  );
  if (summary.reasons.size > 0) {
    out.push('### Not run', '', '| Why | Steps |', '|---|---:|');
    for (const [reason, howMany] of summary.reasons) out.push(`| ${md(reason)} | ${formatNumber(howMany)} |`);
    out.push('');
  }
  out.push('### Credits', '');
  costTable(out, 'Model', credits.byModel);
  costTable(out, 'Step', credits.byStep);
  if (credits.byRow.length > 0) {
    const cut = credits.byRow.length > ROWS_SHOWN;
    out.push(
      `<details><summary>By row (${formatNumber(credits.byRow.length)}${cut ? `, the ${ROWS_SHOWN} costliest shown` : ''})</summary>`,
      '',
    );
    costTable(out, 'Row', credits.byRow.slice(0, ROWS_SHOWN));
    out.push('</details>', '');
  }
  return `${out.join('\n')}\n`;
}

function costTable(out: string[], title: string, lines: readonly CostLine[]): void {
  out.push(`| ${title} | Planned | Used |`, '|---|---:|---:|');
  for (const line of lines)
    out.push(`| ${md(line.name)} | ${formatNumber(line.planned)} | ${formatNumber(line.used)} |`);
  out.push('');
}

function refTable(
  out: string[],
  title: string,
  refs: readonly StepRef[],
  header: readonly string[],
  cells: (ref: StepRef) => readonly string[],
): void {
  if (refs.length === 0) return;
  out.push(`### ${title}`, '', `| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  for (const ref of refs.slice(0, ISSUES_SHOWN)) out.push(`| ${cells(ref).map(md).join(' | ')} |`);
  if (refs.length > ISSUES_SHOWN)
    out.push('', `... and ${formatNumber(refs.length - ISSUES_SHOWN)} more: see report.html or the manifest.`);
  out.push('');
}

/**
 * Text from spreadsheets and error messages, safe inside a Markdown table cell: no column breaks,
 * no line breaks, and no HTML (GitHub renders some of it).
 */
export function md(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replaceAll('`', '\\`')
    .replace(/\r?\n|\r/g, ' ');
}
