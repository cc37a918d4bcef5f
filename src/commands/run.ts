/**
 * `assetline run <pipeline.yaml>`: validate, plan (refusing what does not fit, exit 3), then run
 * every step through the API, download every result and leave a manifest. Resumes where an
 * earlier run stopped. Against the real service with ASSETLINE_BASE_URL and ASSETLINE_API_KEY, or
 * against the embedded sandbox with --sandbox; never the sandbox unless asked.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandIo } from '../cli/io.js';
import { wholeNumber, parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { PipelineInvalidError } from '../pipeline/pipeline-invalid-error.js';
import { LOG_LEVELS, type LogLevel } from '../run/log-levels.js';
import { parseShard } from '../select/shard.js';

const HELP = `Usage: assetline run <pipeline.yaml> [options]

Validates and plans the pipeline (refusing what does not fit the budget or today's quota), then
runs every step through the API, downloads every result and writes out/<pipeline>/manifest.json
(out/<pipeline>/shards/<i>-of-<n>/manifest.json with --shard).
Running it again resumes: finished steps are reused, video jobs in progress are polled again, and
only what is missing or failed is sent.

Options:
  --sandbox            run against the embedded sandbox (no key needed, nothing is paid); it
                       keeps its state in <state-dir>/sandbox/, so an interrupted run resumes
  --out DIR            output folder (default: the pipeline's outputs.dir, else out/)
  --concurrency N      requests in flight at once (wins over the pipeline)
  --max-credits N      budget in credits (wins over budget.max_credits)
  --allow-unpriced     run models without a price, planning them as 0
  --fresh              ignore earlier progress (the journal is set aside)
  --fit                run the whole rows that fit the quota left and the budget (in priority
                       order) and defer the rest: exit 4, run again later to go on
  --dry-run            plan only: print the plan and exit (0, or 3 when refused); with --shard, the
                       shard's plan
  --rows SEL           run only these rows: a row key, a glob over keys (SKU-1*), a row number or a
                       range of them (1-20); repeat it or separate with commas. Keys come first.
                       The manifest still lists the other rows as earlier runs left them
  --redo SEL           pay again for cached results: ROW:STEP, ROW (all its steps) or *:STEP, globs
                       allowed; the steps that use them are redone too. The earlier files are kept
                       under out/<pipeline>/runs/<run that made them>/
  --shard i/n          run only shard i of n (1 <= i <= n <= 256): the rows whose key hashes to it
                       (adding rows moves no other row), into out/<pipeline>/shards/<i>-of-<n>/ with
                       its own journal, lock and manifest, so n shards may run at once. Plans with
                       1/n of the quota left and of the budget (api.quota_per_shard sets its quota;
                       --max-credits is its own budget). With --rows: the rows of both
  --quota-used N       requests already sent with this key in the last 24 h
  --state-dir DIR      where the request ledger (and the --sandbox state) is kept (default .assetline/)
  --log-level LEVEL    ${LOG_LEVELS.join(', ')}
  --log-file FILE      JSON log lines to FILE instead of stderr
  --json               print a JSON summary on stdout at the end
Exit codes: 0 done, 1 some steps failed, 2 invalid or locked, 3 refused, 4 stopped (credits,
quota or budget, or --fit deferred rows; resumable), 5 key refused, 130/143 interrupted (resumable).`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', {
    args: [...args],
    allowPositionals: true,
    options: {
      sandbox: { type: 'boolean', default: false },
      out: { type: 'string' },
      concurrency: { type: 'string' },
      'max-credits': { type: 'string' },
      'allow-unpriced': { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      fit: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'quota-used': { type: 'string' },
      'state-dir': { type: 'string' },
      'log-level': { type: 'string' },
      'log-file': { type: 'string' },
      json: { type: 'boolean', default: false },
      shard: { type: 'string' },
      rows: { type: 'string', multiple: true },
      redo: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`run: expected one pipeline file\n\n${HELP}`);
  // Read first: a bad spec is a usage error before anything is validated, started or written.
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  const maxCredits = wholeNumber('run', '--max-credits', values['max-credits']);
  const quotaUsed = wholeNumber('run', '--quota-used', values['quota-used']);
  if (values['dry-run']) {
    const { printPlan } = await import('./plan.js');
    return printPlan(
      positionals[0] as string,
      {
        json: values.json,
        allowUnpriced: values['allow-unpriced'],
        maxCredits,
        quotaUsed,
        stateDir: values['state-dir'],
        out: values.out,
        fresh: values.fresh,
        fit: values.fit,
        rows: values.rows,
        redo: values.redo,
        shard,
      },
      io,
    );
  }
  const level = (values['log-level'] ?? (io.stderrIsTTY ? 'warn' : 'info')) as LogLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`run: --log-level expects one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  const concurrency = wholeNumber('run', '--concurrency', values.concurrency, 1);
  const [file] = positionals as [string];
  // Loaded after the options are checked: --help and a usage error load none of the runner.
  const [{ runFile }, { createRunLogger }] = await Promise.all([
    import('../library/run.js'),
    import('../run/run-logger.js'),
  ]);
  const logFile = values['log-file'] ? path.resolve(io.cwd, values['log-file']) : undefined;
  const logger = createRunLogger({
    level,
    write: logFile ? (text) => appendFileSync(logFile, text) : io.stderr,
    readable: !logFile && io.stderrIsTTY,
  });
  const {
    validation,
    result: outcome,
    reportPath,
    assetsPath,
  } = await runFile(file, {
    cwd: io.cwd,
    env: io.env,
    sandbox: values.sandbox,
    out: values.out,
    concurrency,
    maxCredits,
    quotaUsed,
    allowUnpriced: values['allow-unpriced'],
    fresh: values.fresh,
    fit: values.fit,
    rows: values.rows,
    redo: values.redo,
    shard,
    stateDir: values['state-dir'],
    logger,
    progress: io.stderrIsTTY && !logFile && !values.json ? 'bar' : 'lines',
    signal: io.signal,
  });
  if (!outcome || !validation.expansion) {
    // Every problem, then "<file>: invalid, nothing was sent": what the library throws, printed.
    io.stderr(`${new PipelineInvalidError(validation).message}\n`);
    return EXIT.invalidPipeline;
  }
  const [{ planText }, { publishToGitHub }, { reportText }, { runJson }] = await Promise.all([
    import('../plan/plan-text.js'),
    import('../report/github-run.js'),
    import('../report/report-text.js'),
    import('../run/run-json.js'),
  ]);
  // Summarised once, by the run, as it wrote the manifest: the terminal, report.html and GitHub
  // show the same.
  const { summary } = outcome;
  if (!summary && outcome.exitCode === EXIT.preflightRefused && !values.json) io.stderr(planText(outcome.plan));
  if (values.json) {
    io.stdout(`${JSON.stringify(runJson(outcome))}\n`);
  } else if (summary) {
    io.stderr(
      `\n${reportText(summary)}\nmanifest ${outcome.manifestPath}\nreport   ${reportPath}\nassets   ${assetsPath}\n`,
    );
  }
  await publishToGitHub(io, {
    pipeline: validation.expansion.pipeline,
    validationWarnings: validation.warnings,
    plan: outcome.plan,
    summary,
    exitCode: outcome.exitCode,
  });
  return outcome.exitCode;
}
