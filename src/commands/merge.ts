/**
 * `assetline merge <dir>... --out DIR`: the output folders of the shards of one run combined into
 * DIR/<pipeline>/, with one manifest, assets.csv and report.html. The report on stdout (or the
 * JSON summary with --json); under GitHub Actions, the Markdown report in the job summary.
 */
import path from 'node:path';
import type { CommandIo } from '../cli/io.js';
import { parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';

const HELP = `Usage: assetline merge <dir>... --out DIR [--allow-missing] [--json]

Combines the output folders of the shards of one run (assetline run --shard i/n) into
DIR/<pipeline>/: every file hard-linked (copied across file systems, never downloaded again), one
manifest.json with the summed totals and the shard of each row, assets.csv and report.html.
Each <dir> is a shard folder (<out>/<pipeline>/shards/<i>-of-<n>/) or a folder holding them: an
--out folder, a downloaded artifact, a folder of artifacts. Rows come in shard order, each
shard's in its manifest's order. Merging again into the same DIR replaces the earlier merge.

Refused, with nothing written (exit 2): folders of different pipelines or pipeline versions,
shards of different counts, one row with two different results, missing shards (unless
--allow-missing), a manifest path leading outside its folder, a folder that is not an output folder.

Options:
  --out DIR         where DIR/<pipeline>/ is written (required)
  --allow-missing   merge the shards that are there when some are missing; they are listed as
                    missing_shards and the merge is not complete (exit 4)
  --json            print a JSON summary on stdout
Exit codes: 0 every shard there and complete, 1 all there and some steps failed, 2 refused or a
usage error, 4 shards missing (--allow-missing) or a shard stopped early, was interrupted or never
finished: run those shards again (they resume), then merge again.`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('merge', {
    args: [...args],
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'allow-missing': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError(`merge: expected the shards' output folders\n\n${HELP}`);
  if (values.out === undefined || values.out === '')
    throw new UsageError('merge: --out DIR is required: the merged folder is DIR/<pipeline>/');
  // Loaded after the options are checked: --help and a usage error load none of the merge.
  const [{ mergeShards }, { mergeJson }, { reportText }, { publishMerge }] = await Promise.all([
    import('../merge/merge-shards.js'),
    import('../merge/merge-json.js'),
    import('../report/report-text.js'),
    import('../report/github-merge.js'),
  ]);
  let merged: Awaited<ReturnType<typeof mergeShards>>;
  try {
    merged = await mergeShards(positionals, {
      out: path.resolve(io.cwd, values.out),
      cwd: io.cwd,
      allowMissing: values['allow-missing'],
      signal: io.signal,
    });
  } catch (error) {
    if (!io.signal.aborted) throw error;
    io.stderr('assetline: merge interrupted: the earlier merge, if any, is as it was\n');
    return io.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
  }
  const { summary } = merged;
  if (values.json) io.stdout(`${JSON.stringify(mergeJson(merged), null, 2)}\n`);
  else {
    const shown = (file: string) => path.relative(io.cwd, file) || file;
    io.stdout(
      `${reportText(summary, merged.notes)}\nmanifest ${shown(merged.manifestFile)}\nreport   ${shown(merged.reportFile)}\nassets   ${shown(merged.assetsFile)}\n`,
    );
  }
  await publishMerge(io, summary, merged.notes);
  return summary.manifest.exit_code ?? EXIT.internal;
}
