/**
 * `assetline run <pipeline.yaml>`: validate, plan (refusing what does not fit, exit 3), then run
 * every step through the API, download every result and leave a manifest. Resumes where an
 * earlier run stopped. Against the real service with ASSETLINE_BASE_URL and ASSETLINE_API_KEY, or
 * against the embedded sandbox with --sandbox; never the sandbox unless asked.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveConnection } from '../api/connection.js';
import { SecretKey } from '../api/secret-key.js';
import type { CommandIo } from '../cli/io.js';
import { wholeNumber, withUsageErrors } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { newStepCounts } from '../manifest/manifest-totals.js';
import { compareProblems, formatProblem } from '../pipeline/problem.js';
import { validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { planText } from '../plan/plan-text.js';
import { publishToGitHub } from '../report/github-run.js';
import { reportText } from '../report/report-text.js';
import { writeRunReport } from '../report/run-report.js';
import { createRunLogger, LOG_LEVELS, type LogLevel } from '../run/run-logger.js';
import { runPipeline } from '../run/run-pipeline.js';
import { DEFAULT_STATE_DIR } from './plan.js';

const HELP = `Usage: assetline run <pipeline.yaml> [options]

Validates and plans the pipeline (refusing what does not fit the budget or today's quota), then
runs every step through the API, downloads every result and writes out/<pipeline>/manifest.json.
Running it again resumes: finished steps are reused, video jobs in progress are polled again, and
only what is missing or failed is sent.

Options:
  --sandbox            run against the embedded sandbox (no key needed, nothing is paid)
  --out DIR            output folder (default: the pipeline's outputs.dir, else out/)
  --concurrency N      requests in flight at once (wins over the pipeline)
  --max-credits N      budget in credits (wins over budget.max_credits)
  --allow-unpriced     run models without a price, planning them as 0
  --fresh              ignore earlier progress (the journal is set aside)
  --dry-run            plan only: print the plan and exit (0, or 3 when refused)
  --quota-used N       requests already sent with this key in the last 24 h
  --state-dir DIR      where the request ledger is kept (default .assetline/)
  --log-level LEVEL    ${LOG_LEVELS.join(', ')}
  --log-file FILE      JSON log lines to FILE instead of stderr
  --json               print a JSON summary on stdout at the end
Exit codes: 0 done, 1 some steps failed, 2 invalid or locked, 3 refused, 4 stopped (credits,
quota or budget; resumable), 5 key refused, 130/143 interrupted (resumable).`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsageErrors('run', () =>
    parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        sandbox: { type: 'boolean', default: false },
        out: { type: 'string' },
        concurrency: { type: 'string' },
        'max-credits': { type: 'string' },
        'allow-unpriced': { type: 'boolean', default: false },
        fresh: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        'quota-used': { type: 'string' },
        'state-dir': { type: 'string' },
        'log-level': { type: 'string' },
        'log-file': { type: 'string' },
        json: { type: 'boolean', default: false },
        shard: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`run: expected one pipeline file\n\n${HELP}`);
  if (values.shard !== undefined) throw new UsageError('run: --shard is not available yet');
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
      },
      io,
    );
  }
  const level = (values['log-level'] ?? (io.stderrIsTTY ? 'warn' : 'info')) as LogLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`run: --log-level expects one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  const concurrency = wholeNumber('run', '--concurrency', values.concurrency, 1);
  const [file] = positionals as [string];

  const result = await validatePipelineFile(path.resolve(io.cwd, file), { displayPath: file });
  if (!result.expansion) {
    const problems = [...result.errors, ...result.warnings].sort(compareProblems);
    io.stderr(`${problems.map(formatProblem).join('\n')}\n${file}: invalid, nothing was sent\n`);
    return EXIT.invalidPipeline;
  }
  const { pipeline } = result.expansion;

  let stopSandbox: (() => Promise<void>) | undefined;
  let baseUrl: string;
  let key: SecretKey;
  if (values.sandbox) {
    // Loaded only when asked for (nothing else here imports the sandbox, not even a type): it
    // brings sharp and libvips, which a run against the service does not need in its memory.
    const { startSandbox } = await import('../sandbox/sandbox.js');
    const sandbox = await startSandbox();
    stopSandbox = () => sandbox.stop();
    baseUrl = sandbox.baseUrl;
    // Its first account: the demo one of its default configuration.
    key = new SecretKey(sandbox.accounts.all()[0]?.key ?? '');
  } else {
    const connection = resolveConnection(io.env, pipeline.api.baseUrl);
    baseUrl = connection.baseUrl;
    key = connection.key;
  }
  const logFile = values['log-file'] ? path.resolve(io.cwd, values['log-file']) : undefined;
  const logger = createRunLogger({
    level,
    write: logFile ? (text) => appendFileSync(logFile, text) : io.stderr,
    readable: !logFile && io.stderrIsTTY,
  });
  const outRoot = values.out
    ? path.resolve(io.cwd, values.out)
    : pipeline.outputsDir
      ? path.resolve(pipeline.dir, pipeline.outputsDir)
      : path.resolve(io.cwd, 'out');
  try {
    const outcome = await runPipeline(result.expansion, {
      outRoot,
      stateDir: path.resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR),
      fresh: values.fresh,
      allowUnpriced: values['allow-unpriced'],
      maxCredits,
      quotaUsed,
      concurrency,
      baseUrl,
      key,
      sandbox: values.sandbox,
      logger,
      progress: io.stderrIsTTY && !logFile && !values.json ? 'bar' : 'lines',
      interrupt: io.signal,
      warnings: result.warnings.map(formatProblem),
    });
    // Summarised once, by the run, as it wrote the manifest: the terminal, report.html and GitHub
    // show the same.
    const { summary } = outcome;
    const reportPath = await writeRunReport(outcome);
    if (!summary && outcome.exitCode === EXIT.preflightRefused && !values.json) io.stderr(planText(outcome.plan));
    if (values.json) {
      const manifest = summary?.manifest;
      io.stdout(
        `${JSON.stringify({
          status: manifest?.status ?? 'refused',
          exit_code: outcome.exitCode,
          credits_used: manifest?.totals.credits.used ?? 0,
          requests_sent: manifest?.totals.requests.sent ?? 0,
          steps: manifest ? manifest.totals.steps : newStepCounts(),
          manifest: outcome.manifestPath ?? null,
          ...(!manifest && { reasons: outcome.plan.reasons }),
        })}\n`,
      );
    } else if (summary) {
      io.stderr(`\n${reportText(summary)}\nmanifest ${outcome.manifestPath}\nreport   ${reportPath}\n`);
    }
    await publishToGitHub(io, {
      pipeline,
      validationWarnings: result.warnings,
      plan: outcome.plan,
      summary,
      exitCode: outcome.exitCode,
    });
    return outcome.exitCode;
  } finally {
    await stopSandbox?.();
  }
}
