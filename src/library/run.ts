/**
 * Validate, plan and run one pipeline file: the `run` command and the library's `run()` share this.
 * Configuration is resolved here, once: the service and key (from options, else the environment),
 * or the embedded sandbox, which is loaded only when asked for.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { resolveConnection } from '../api/connection.js';
import { SecretKey } from '../api/secret-key.js';
import { PipelineInvalidError } from '../pipeline/pipeline-invalid-error.js';
import { formatProblem } from '../pipeline/problem.js';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { DEFAULT_STATE_DIR } from '../plan/plan-file.js';
import { type RunJson, runJson } from '../run/run-json.js';
import type { LogLevel } from '../run/log-levels.js';
import { createRunLogger } from '../run/run-logger.js';
import { outputRoot } from '../run/output-layout.js';
import { resolveSelection } from '../select/selection.js';
import { parseShard, type Shard } from '../select/shard.js';
import { type RunResult, runPipeline } from '../run/run-pipeline.js';
import { startEmbeddedSandbox } from './embedded-sandbox.js';

export interface RunFileOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sandbox: boolean;
  readonly out?: string | undefined;
  readonly concurrency?: number | undefined;
  readonly maxCredits?: number | undefined;
  readonly quotaUsed?: number | undefined;
  readonly allowUnpriced: boolean;
  readonly fresh: boolean;
  readonly fit?: boolean | undefined;
  readonly rows?: readonly string[] | undefined;
  readonly redo?: readonly string[] | undefined;
  /** `--shard i/n`, parsed. */
  readonly shard?: Shard | undefined;
  readonly stateDir?: string | undefined;
  readonly logger: Logger;
  readonly progress: 'bar' | 'lines' | 'off';
  readonly signal: AbortSignal;
}

export interface RanFile {
  readonly validation: ValidationResult;
  /** Undefined when the pipeline is invalid: nothing was sent. */
  readonly result: RunResult | undefined;
  /** report.html, written after the runner from the summary it made; undefined when refused. */
  readonly reportPath?: string | undefined;
  /** assets.csv, the results as a sheet; undefined when refused. */
  readonly assetsPath?: string | undefined;
}

export async function runFile(file: string, options: RunFileOptions): Promise<RanFile> {
  const validation = await validatePipelineFile(path.resolve(options.cwd, file), { displayPath: file });
  if (!validation.expansion) return { validation, result: undefined };
  const { pipeline } = validation.expansion;
  // A selector that names nothing is a usage error before anything is started, sent or written.
  const selection = resolveSelection(validation.expansion, {
    rows: options.rows,
    redo: options.redo,
    shard: options.shard,
  });
  // Resolved before the sandbox starts, so a missing key is reported without starting anything.
  const connection = options.sandbox ? undefined : resolveConnection(options.env, pipeline.api.baseUrl);
  const stateDir = path.resolve(options.cwd, options.stateDir ?? DEFAULT_STATE_DIR);
  const sandbox = options.sandbox ? await startEmbeddedSandbox(stateDir) : undefined;
  try {
    const { baseUrl, key } = sandbox ?? (connection as { baseUrl: string; key: SecretKey });
    const outRoot = outputRoot(options.cwd, options.out, pipeline);
    const result = await runPipeline(validation.expansion, {
      outRoot,
      stateDir,
      fresh: options.fresh,
      fit: options.fit ?? false,
      allowUnpriced: options.allowUnpriced,
      maxCredits: options.maxCredits,
      quotaUsed: options.quotaUsed,
      concurrency: options.concurrency,
      baseUrl,
      key,
      sandbox: sandbox !== undefined,
      route: sandbox?.route,
      logger: options.logger,
      progress: options.progress,
      interrupt: options.signal,
      warnings: validation.warnings.map(formatProblem),
      selection,
    });
    // Loaded after the run: the report's modules (and the manifest schema the gallery reads back
    // with) need not hold up the first request.
    const [{ writeRunReport }, { writeAssetsCsv }] = await Promise.all([
      import('../report/run-report.js'),
      import('../report/assets-csv.js'),
    ]);
    const reportPath = await writeRunReport(result);
    const assetsPath =
      result.keptManifestPath === undefined || result.manifestPath === undefined
        ? undefined
        : await writeAssetsCsv(result.keptManifestPath, path.dirname(result.manifestPath), validation.expansion);
    return { validation, result, reportPath, assetsPath };
  } finally {
    await sandbox?.stop();
  }
}

export interface RunOptions {
  /**
   * The folder relative paths (the pipeline, `out`, `stateDir`, `logFile`) are resolved against.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * Run against the embedded sandbox: no key needed, nothing is paid. Needs the sandbox's
   * optional dependencies (sharp, h264-mp4-encoder, lamejs).
   * @default false
   */
  readonly sandbox?: boolean;
  /**
   * The service's base URL.
   * @default process.env.ASSETLINE_BASE_URL, else the pipeline's `api.base_url`
   */
  readonly baseUrl?: string;
  /**
   * The API key: sent only as the Authorization header, never logged or written.
   * @default process.env.ASSETLINE_API_KEY
   */
  readonly apiKey?: string;
  /**
   * The output folder; the run writes into `<out>/<pipeline name>/`.
   * @default the pipeline's `outputs.dir`, else "out"
   */
  readonly out?: string;
  /**
   * Requests in flight at once; wins over the pipeline's `concurrency.total`.
   * @default the pipeline's setting
   */
  readonly concurrency?: number;
  /**
   * Budget in credits; wins over the pipeline's `budget.max_credits`.
   * @default the pipeline's budget, else none
   */
  readonly maxCredits?: number;
  /**
   * Run models without a price, planning them as 0.
   * @default false
   */
  readonly allowUnpriced?: boolean;
  /**
   * Ignore earlier progress: the journal is set aside and every step is sent again.
   * @default false
   */
  readonly fresh?: boolean;
  /**
   * Run only the whole rows that fit the quota left and the budget (in `priority:` order, else the
   * sheet's) and defer the rest: `status` "stopped", `exit_code` 4; run again later to go on.
   * Without it, a plan over the quota or the budget is refused.
   * @default false
   */
  readonly fit?: boolean;
  /**
   * Requests already sent with this key in the last 24 hours, instead of what the ledger says.
   * @default the request ledger's count
   */
  readonly quotaUsed?: number;
  /**
   * Run only these rows (`--rows`): each a row key, a glob over row keys (`"SKU-1*"`; `*` and `?`),
   * a row number from 1 (`"7"`) or a range (`"1-20"`); a row key wins over a number. Each string
   * may list several, comma-separated. The other rows are neither sent nor planned; the manifest
   * and assets.csv list them as earlier runs left them (`reason: "not-selected"`).
   * @default every row
   */
  readonly rows?: readonly string[];
  /**
   * Pay again for these cached results (`--redo`): `"ROW:STEP"`, `"ROW"` (every step of the row)
   * or `"*:STEP"` (the step in every row), globs allowed in both parts. The steps that use a
   * redone step's output are redone too. The earlier files are kept under
   * `<out>/<pipeline>/runs/<id of the run that saved them>/`.
   * @default nothing redone
   */
  readonly redo?: readonly string[];
  /**
   * Run one shard of the rows (`--shard`): `"i/n"` with 1 <= i <= n <= 256, e.g. `"2/4"`. A row
   * belongs to a shard by a hash of its key, so adding rows moves no other row. The shard writes
   * only its own folder, `<out>/<pipeline>/shards/<i>-of-<n>/` (journal, manifest, assets), whose
   * manifest lists only its rows; n shards may run at once. It plans with 1/n of the quota left
   * and of the pipeline's budget (`api.quota_per_shard` sets its quota; `maxCredits` is its own
   * budget, not divided). With `rows`, the rows of both.
   * @default every row, unsharded
   */
  readonly shard?: string;
  /**
   * Where the request ledger is kept, and with `sandbox`, the embedded sandbox's state
   * (`<stateDir>/sandbox/`), which a later run with the same folder resumes from.
   * @default ".assetline"
   */
  readonly stateDir?: string;
  /**
   * Aborting it stops the run as SIGINT does: nothing more is sent, the manifest is written, and
   * the result has `status: "interrupted"` and `exit_code` 130.
   */
  readonly signal?: AbortSignal;
  /**
   * The log's level: pino JSON lines, to `logFile` (or stderr when no file is given).
   * @default "silent"
   */
  readonly logLevel?: LogLevel;
  /** Append the log's JSON lines to this file instead of stderr. */
  readonly logFile?: string;
}

/**
 * Validates, plans and runs a pipeline, as `assetline run` does: refuses what does not fit (the
 * result's `exit_code` is 3 and nothing is sent), resumes an earlier run in the same output folder,
 * downloads every result, and writes manifest.json, report.html and assets.csv. A run that stops
 * (credits, quota, budget, a refused key, an interrupt) is not an error: `status` and `exit_code`
 * say so.
 *
 * @returns `{ status, exit_code, credits_used, requests_sent, steps, manifest }`, plus `reasons`
 *   when the plan refused the run.
 * @throws {PipelineInvalidError} the pipeline does not validate (nothing was sent).
 * @throws {UsageError} no service or key is configured, the output folder cannot be written, a
 *   `rows` or `redo` selector names no row or step, or `shard` is not `"i/n"` (nothing is sent or
 *   written).
 * @throws {LockedError} another run holds the output folder.
 */
export async function run(file: string, options: RunOptions = {}): Promise<RunJson> {
  const cwd = options.cwd ?? process.cwd();
  const logFile = options.logFile === undefined ? undefined : path.resolve(cwd, options.logFile);
  const logger = createRunLogger({
    level: options.logLevel ?? 'silent',
    write: logFile ? (text) => appendFileSync(logFile, text) : (text) => process.stderr.write(text),
    readable: false,
  });
  const { validation, result } = await runFile(file, {
    cwd,
    env: {
      ...process.env,
      ...(options.baseUrl !== undefined && { ASSETLINE_BASE_URL: options.baseUrl }),
      ...(options.apiKey !== undefined && { ASSETLINE_API_KEY: options.apiKey }),
    },
    sandbox: options.sandbox ?? false,
    out: options.out,
    concurrency: options.concurrency,
    maxCredits: options.maxCredits,
    quotaUsed: options.quotaUsed,
    allowUnpriced: options.allowUnpriced ?? false,
    fresh: options.fresh ?? false,
    fit: options.fit ?? false,
    rows: options.rows,
    redo: options.redo,
    shard: options.shard === undefined ? undefined : parseShard(options.shard, 'shard'),
    stateDir: options.stateDir,
    logger,
    progress: 'off',
    signal: options.signal ?? new AbortController().signal,
  });
  if (!result) throw new PipelineInvalidError(validation);
  return runJson(result);
}
