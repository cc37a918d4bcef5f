/**
 * `assetline report <run-dir> [--html|--md]`: the report of a finished, stopped or crashed run,
 * from its output folder (or one of its runs/<run-id>.json). Text on stdout by default, Markdown
 * with --md, and with --html it writes report.html beside the assets and prints its path.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandIo } from '../cli/io.js';
import { withUsageErrors } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { summarize } from '../manifest/manifest-summary.js';
import { writeAtomically } from '../manifest/manifest-writer.js';
import { loadRun } from '../report/load-run.js';
import { reportHtml } from '../report/report-html.js';
import { reportMarkdown } from '../report/report-markdown.js';
import { reportText } from '../report/report-text.js';

const HELP = `Usage: assetline report <run-dir> [--html|--md]

Shows what a run made, what it cost against its plan, and what needs attention. <run-dir> is the
pipeline's output folder (out/<pipeline>/) or one of its runs/<run-id>.json. Works on finished,
stopped and crashed runs: when the manifest is missing or was left "running", the journal fills in.

Options:
  --md      Markdown on stdout (for mail, chat, or a GitHub job summary)
  --html    write report.html in the output folder (runs/<run-id>.html for an older run) and
            print its path
Exit codes: 0 shown, 2 not a run folder or an unreadable manifest.`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsageErrors('report', () =>
    parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        html: { type: 'boolean', default: false },
        md: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`report: expected one run folder\n\n${HELP}`);
  if (values.html && values.md) throw new UsageError('report: choose one of --html and --md');
  const [target] = positionals as [string];
  const loaded = await loadRun(path.resolve(io.cwd, target), target);
  const summary = summarize(loaded.manifest);
  if (values.md) {
    io.stdout(reportMarkdown(summary, loaded.notes));
  } else if (values.html) {
    const fromRuns = path.resolve(io.cwd, target).endsWith('.json') && path.basename(path.dirname(target)) === 'runs';
    const file = fromRuns
      ? path.join(loaded.dir, 'runs', `${loaded.manifest.run_id}.html`)
      : path.join(loaded.dir, 'report.html');
    await writeAtomically(file, reportHtml(summary, loaded.notes));
    io.stdout(`${path.relative(io.cwd, file) || file}\n`);
  } else {
    io.stdout(reportText(summary, loaded.notes));
  }
  return EXIT.ok;
}
