/** The library's `plan()`: the object `assetline plan --json` prints. */
import { keyFromEnv } from '../api/connection.js';
import { SecretKey } from '../api/secret-key.js';
import { PipelineInvalidError } from '../pipeline/pipeline-invalid-error.js';
import { planFile } from '../plan/plan-file.js';
import { type PlanJson, planJson } from '../plan/plan-json.js';
import { parseShard } from '../select/shard.js';

export interface PlanOptions {
  /**
   * The folder relative paths (the pipeline, `stateDir`) are resolved against.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * Budget in credits; wins over the pipeline's `budget.max_credits`.
   * @default the pipeline's budget, else none
   */
  readonly maxCredits?: number;
  /**
   * Plan models without a price as a lower bound instead of refusing.
   * @default false
   */
  readonly allowUnpriced?: boolean;
  /**
   * Requests already sent with this key in the last 24 hours, instead of what the ledger says.
   * @default the request ledger's count
   */
  readonly quotaUsed?: number;
  /**
   * Where the request ledger is kept.
   * @default ".assetline"
   */
  readonly stateDir?: string;
  /**
   * The output folder the run would use: steps it already holds are cached, not planned.
   * @default the pipeline's `outputs.dir`, else "out"
   */
  readonly out?: string;
  /**
   * Plan as if the output folder held nothing.
   * @default false
   */
  readonly fresh?: boolean;
  /**
   * Plan only the whole rows that fit the quota left and the budget (in `priority:` order, else
   * the sheet's); the rest is listed as deferred under `fit`.
   * @default false
   */
  readonly fit?: boolean;
  /**
   * Plan only these rows (`--rows`): each a row key, a glob over row keys (`"SKU-1*"`; `*` and
   * `?`), a row number from 1 (`"7"`) or a range (`"1-20"`); a row key wins over a number. Each
   * string may list several, comma-separated.
   * @default every row
   */
  readonly rows?: readonly string[];
  /**
   * Plan paying again for these cached results (`--redo`): `"ROW:STEP"`, `"ROW"` or `"*:STEP"`,
   * globs allowed in both parts; the steps that use them count too. The plan's `redo` says what
   * that costs.
   * @default nothing redone
   */
  readonly redo?: readonly string[];
  /**
   * Plan one shard of the rows (`--shard`): `"i/n"` with 1 <= i <= n <= 256, e.g. `"2/4"`, as
   * `run({ shard })` would run it: the shard's rows (with `rows`, those of both), what its own
   * folder `<out>/<pipeline>/shards/<i>-of-<n>/` holds cached, and 1/n of the quota left and of the
   * pipeline's budget (`api.quota_per_shard` sets its quota; `maxCredits` is its own budget). The
   * plan's `shard` says so.
   * @default every row, unsharded
   */
  readonly shard?: string;
  /**
   * The API key whose ledger tells the quota used (never sent by `plan`).
   * @default process.env.ASSETLINE_API_KEY
   */
  readonly apiKey?: string;
}

/**
 * Plans a pipeline: every step's credits, the requests it will send, the quota left today, and
 * whether the run would be refused (`refused`, with `reasons`). Counts only what a run into the
 * same output folder would send; what it holds is `cached`. Sends nothing.
 *
 * @throws {PipelineInvalidError} the pipeline does not validate (its `problems` list them all).
 * @throws {UsageError} a `rows` or `redo` selector names no row or step, or `shard` is not `"i/n"`.
 */
export async function plan(file: string, options: PlanOptions = {}): Promise<PlanJson> {
  const apiKey = options.apiKey?.trim();
  const shard = options.shard === undefined ? undefined : parseShard(options.shard, 'shard');
  const { validation, plan: planned } = await planFile(file, {
    cwd: options.cwd ?? process.cwd(),
    allowUnpriced: options.allowUnpriced ?? false,
    maxCredits: options.maxCredits,
    quotaUsed: options.quotaUsed,
    stateDir: options.stateDir,
    out: options.out,
    fresh: options.fresh,
    fit: options.fit,
    rows: options.rows,
    redo: options.redo,
    shard,
    key: apiKey ? new SecretKey(apiKey) : keyFromEnv(process.env),
  });
  if (!planned) throw new PipelineInvalidError(validation);
  return planJson(planned);
}
