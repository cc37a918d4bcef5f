/**
 * `assetline plan <pipeline.yaml>`: what the pipeline will cost in credits and requests, whether
 * it fits the budget and the quota left today, and the verdict; of one shard (`--shard i/n`), or
 * of all n side by side (`--shards n`). Sends nothing.
 * Exit 0 when it fits, 3 when refused, 2 when the pipeline is invalid or a selector names nothing.
 */
import type { CommandIo } from '../cli/io.js';
import { wholeNumber, parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { keyFromEnv } from '../api/connection.js';
import { compareProblems, formatProblem } from '../pipeline/problem.js';
import type { ValidationResult } from '../pipeline/validate-pipeline.js';
import { type PlanFileOptions, planFile, planShardsFile } from '../plan/plan-file.js';
import { planJson } from '../plan/plan-json.js';
import { planText } from '../plan/plan-text.js';
import { shardsJson } from '../plan/shards-json.js';
import { shardsPlan } from '../plan/shards-plan.js';
import { shardsText } from '../plan/shards-text.js';
import { parseShard, parseShardCount, type Shard } from '../select/shard.js';

const HELP = `Usage: assetline plan <pipeline.yaml> [options]

Shows every step's credits (by step, model and row), the requests it will send (video status
polls included), the daily quota left, and whether the run would be refused. Only what the run
would send is counted: steps the output folder already holds are cached. Sends nothing.

Options:
  --json               print the plan as one JSON object
  --max-credits N      budget in credits (wins over budget.max_credits)
  --allow-unpriced     plan models without a price (iota-2, iota-2-edit) as a lower bound
  --quota-used N       requests already sent with this key in the last 24 h (instead of the ledger)
  --state-dir DIR      where the request ledger is kept (default .assetline/)
  --out DIR            the output folder run would use (default: the pipeline's outputs.dir, else
                       out/): steps it already holds are cached, not planned
  --fresh              plan as if the output folder held nothing
  --fit                plan only the whole rows that fit the quota left and the budget, in
                       priority order; show what is deferred and how many more days it needs
  --rows SEL           plan only these rows: a row key, a glob over keys (SKU-1*), a row number or a
                       range of them (1-20); repeat it or separate with commas. Keys come first
  --redo SEL           pay again for cached results: ROW:STEP, ROW (all its steps) or *:STEP, globs
                       allowed; the steps that use them are redone too
  --shard i/n          plan only shard i of n (1 <= i <= n <= 256): the rows whose key hashes to it,
                       what out/<pipeline>/shards/<i>-of-<n>/ holds, and 1/n of the quota left and of
                       the budget (api.quota_per_shard sets its quota; --max-credits is its own)
  --shards n           plan all n shards side by side: rows, credits, requests, each one's share and
                       whether it fits, and how even they are; exit 3 when any would be refused
Exit codes: 0 fits, 3 refused (over budget or quota, or unpriced), 2 invalid pipeline or usage
(a --rows or --redo selector that names no row or step, a --shard that is not i/n).`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('plan', {
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'max-credits': { type: 'string' },
      'allow-unpriced': { type: 'boolean', default: false },
      'quota-used': { type: 'string' },
      'state-dir': { type: 'string' },
      out: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      fit: { type: 'boolean', default: false },
      rows: { type: 'string', multiple: true },
      redo: { type: 'string', multiple: true },
      shard: { type: 'string' },
      shards: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`plan: expected one pipeline file\n\n${HELP}`);
  if (values.shard !== undefined && values.shards !== undefined)
    throw new UsageError('plan: choose one of --shard i/n (one shard) and --shards n (all n side by side)');
  const flags: PlanFlags = {
    json: values.json,
    allowUnpriced: values['allow-unpriced'],
    maxCredits: wholeNumber('plan', '--max-credits', values['max-credits']),
    quotaUsed: wholeNumber('plan', '--quota-used', values['quota-used']),
    stateDir: values['state-dir'],
    out: values.out,
    fresh: values.fresh,
    fit: values.fit,
    rows: values.rows,
    redo: values.redo,
    shard: values.shard === undefined ? undefined : parseShard(values.shard),
  };
  const file = positionals[0] as string;
  if (values.shards !== undefined) return printShards(file, parseShardCount(values.shards), flags, io);
  return printPlan(file, flags, io);
}

export interface PlanFlags {
  readonly json: boolean;
  readonly allowUnpriced: boolean;
  readonly maxCredits: number | undefined;
  readonly quotaUsed: number | undefined;
  readonly stateDir: string | undefined;
  /** The output folder the run would use: what it holds is not planned again. */
  readonly out: string | undefined;
  readonly fresh: boolean;
  /** Plan only the whole rows that fit the quota left and the budget. */
  readonly fit: boolean;
  /** `--rows`: only these rows are planned. */
  readonly rows?: readonly string[] | undefined;
  /** `--redo`: cached results paid for again. */
  readonly redo?: readonly string[] | undefined;
  /** `--shard i/n`, parsed: only the shard's rows, with its share of the quota and the budget. */
  readonly shard?: Shard | undefined;
}

/** Validate and plan one file, print the plan, return the exit code: `plan`, and `run --dry-run`. */
export async function printPlan(file: string, flags: PlanFlags, io: CommandIo): Promise<number> {
  const { validation, plan } = await planFile(file, { ...planFileOptions(flags, io), shard: flags.shard });
  if (!plan) return invalid(file, validation, io);
  io.stdout(flags.json ? `${JSON.stringify(planJson(plan), null, 2)}\n` : planText(plan));
  return plan.refused ? EXIT.preflightRefused : EXIT.ok;
}

/** `plan --shards n`: every shard's plan side by side; exit 3 when any shard would be refused. */
async function printShards(file: string, count: number, flags: PlanFlags, io: CommandIo): Promise<number> {
  const { validation, plans } = await planShardsFile(file, count, planFileOptions(flags, io));
  if (!plans) return invalid(file, validation, io);
  const shards = shardsPlan(plans);
  io.stdout(flags.json ? `${JSON.stringify(shardsJson(shards), null, 2)}\n` : shardsText(shards));
  return shards.refused ? EXIT.preflightRefused : EXIT.ok;
}

function planFileOptions(flags: PlanFlags, io: CommandIo): PlanFileOptions {
  return {
    cwd: io.cwd,
    allowUnpriced: flags.allowUnpriced,
    maxCredits: flags.maxCredits,
    quotaUsed: flags.quotaUsed,
    stateDir: flags.stateDir,
    key: keyFromEnv(io.env),
    out: flags.out,
    fresh: flags.fresh,
    fit: flags.fit,
    rows: flags.rows,
    redo: flags.redo,
  };
}

/** Every problem, then that nothing was planned: exit 2. */
function invalid(file: string, validation: ValidationResult, io: CommandIo): number {
  const problems = [...validation.errors, ...validation.warnings].sort(compareProblems);
  io.stderr(`${problems.map(formatProblem).join('\n')}\n${file}: invalid, nothing planned\n`);
  return EXIT.invalidPipeline;
}
