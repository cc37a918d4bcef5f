/**
 * `assetline plan <pipeline.yaml>`: what the pipeline will cost in credits and requests, whether
 * it fits the budget and the quota left today, and the verdict. Sends nothing.
 * Exit 0 when it fits, 3 when refused, 2 when the pipeline is invalid.
 */
import { parseArgs } from 'node:util';
import type { CommandIo } from '../cli/io.js';
import { wholeNumber, withUsageErrors } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { keyFromEnv } from '../api/connection.js';
import { compareProblems, formatProblem } from '../pipeline/problem.js';
import { planFile } from '../plan/plan-file.js';
import { planJson } from '../plan/plan-json.js';
import { planText } from '../plan/plan-text.js';

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
Exit codes: 0 fits, 3 refused (over budget or quota, or unpriced), 2 invalid pipeline or usage.`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsageErrors('plan', () =>
    parseArgs({
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`plan: expected one pipeline file\n\n${HELP}`);
  return printPlan(
    positionals[0] as string,
    {
      json: values.json,
      allowUnpriced: values['allow-unpriced'],
      maxCredits: wholeNumber('plan', '--max-credits', values['max-credits']),
      quotaUsed: wholeNumber('plan', '--quota-used', values['quota-used']),
      stateDir: values['state-dir'],
      out: values.out,
      fresh: values.fresh,
      fit: values.fit,
    },
    io,
  );
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
}

/** Validate and plan one file, print the plan, return the exit code: `plan`, and `run --dry-run`. */
export async function printPlan(file: string, flags: PlanFlags, io: CommandIo): Promise<number> {
  const { validation, plan } = await planFile(file, {
    cwd: io.cwd,
    allowUnpriced: flags.allowUnpriced,
    maxCredits: flags.maxCredits,
    quotaUsed: flags.quotaUsed,
    stateDir: flags.stateDir,
    key: keyFromEnv(io.env),
    out: flags.out,
    fresh: flags.fresh,
    fit: flags.fit,
  });
  if (!plan) {
    const problems = [...validation.errors, ...validation.warnings].sort(compareProblems);
    io.stderr(`${problems.map(formatProblem).join('\n')}\n${file}: invalid, nothing planned\n`);
    return EXIT.invalidPipeline;
  }
  io.stdout(flags.json ? `${JSON.stringify(planJson(plan), null, 2)}\n` : planText(plan));
  return plan.refused ? EXIT.preflightRefused : EXIT.ok;
}
