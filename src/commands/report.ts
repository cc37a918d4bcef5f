/**
 * `assetline report <run-dir> [--html|--md]`: the report of a finished, stopped or crashed run,
 * from its output folder (or one of its runs/<run-id>.json). Text on stdout by default, Markdown
 * with --md, and with --html it writes report.html beside the assets and prints its path.
 */
import path from 'node:path';
import type { CommandIo } from '../cli/io.js';
import { parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { reportRun } from '../library/report.js';
import { reportJson } from '../report/report-json.js';
import { reportMarkdown } from '../report/report-markdown.js';
import { reportText } from '../report/report-text.js';

const HELP = `Usage: assetline report <run-dir> [--html|--md] [--json]

Shows what a run made, what it cost against its plan, and what needs attention. <run-dir> is the
pipeline's output folder (out/<pipeline>/) or one of its runs/<run-id>.json. Works on finished,
stopped and crashed runs: when the manifest is missing or was left "running", the journal fills in.

Options:
  --md      Markdown on stdout (for mail, chat, or a GitHub job summary)
  --html    write report.html in the output folder (runs/<run-id>.html for an older run) and
            print its path
  --json    print the report as one JSON object (with --html, also write report.html)
Exit codes: 0 shown, 2 not a run folder or an unreadable manifest.`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('report', {
    args: [...args],
    allowPositionals: true,
    options: {
      html: { type: 'boolean', default: false },
      md: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`report: expected one run folder\n\n${HELP}`);
  if (values.html && values.md) throw new UsageError('report: choose one of --html and --md');
  if (values.json && values.md) throw new UsageError('report: choose one of --json and --md');
  const [target] = positionals as [string];
  const { loaded, summary, htmlFile } = await reportRun(target, { cwd: io.cwd, html: values.html });
  if (values.json) io.stdout(`${JSON.stringify(reportJson(loaded, summary, htmlFile ?? null), null, 2)}\n`);
  else if (values.md) io.stdout(reportMarkdown(summary, loaded.notes));
  else if (htmlFile) io.stdout(`${path.relative(io.cwd, htmlFile) || htmlFile}\n`);
  else io.stdout(reportText(summary, loaded.notes));
  return EXIT.ok;
}
