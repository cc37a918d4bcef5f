/**
 * What a plan says: credits by step, model and row; requests and polls; the quota and the budget;
 * whether it is refused, and why, with the numbers. The core returns this; the terminal table and
 * the JSON are views of it.
 */
import type { Operation } from '../catalog/operations.js';
import type { PlanName } from '../catalog/limits.js';
import type { PriceSource } from './price-instance.js';
import type { RowNeeds } from './row-needs.js';

/** One line of the table: instances of a step that share a model and a unit price. */
export interface StepLine {
  readonly stepId: string;
  readonly operation: Operation;
  readonly priceKey: string;
  /** null: unpriced. */
  readonly unitCredits: number | null;
  readonly source: PriceSource | 'unpriced';
  instances: number;
  /** Images for generate (num_images), otherwise one per instance. */
  units: number;
  credits: number;
  /** Instances an earlier run's results cover: no credits, no requests. */
  cached: number;
}

/** Instances of a model without a published price, by the `pricing:` entry they need. */
export interface UnpricedGroup {
  readonly model: string;
  readonly tier: string;
  readonly steps: Set<string>;
  instances: number;
}

export interface QuotaState {
  readonly plan: PlanName;
  readonly limit: number | null;
  /** Requests with this key in the last 24 hours; null when nothing tells. */
  readonly used24h: number | null;
  readonly usedSource: 'ledger' | 'flag' | 'unknown';
  readonly remaining: number | null;
  /** When the service last refused a request for the quota, while that holds (then remaining is 0). */
  readonly refusedAt: number | null;
  /** `--shard`: the shard's part of the quota, which the verdict and --fit use (shard-share.ts). */
  readonly share?: QuotaShare | undefined;
}

/** A shard's part of the key's quota. */
export interface QuotaShare {
  /** Requests the shard may send of what the key has left; null when the limit is unknown. */
  readonly requests: number | null;
  /** A whole 24-hour window's worth for the shard (--fit packs later nights with it). */
  readonly perWindow: number | null;
  /** `split`: floor(1/n) of the key's; `quota_per_shard`: the pipeline's `api.quota_per_shard`. */
  readonly source: 'split' | 'quota_per_shard';
}

/** `--shard i/n`: the shard a plan is of. */
export interface ShardPlan {
  readonly index: number;
  readonly count: number;
  /** Rows of the rows file in the shard (the plan's `rows` are those of them --rows chose). */
  readonly rows: number;
}

export interface Plan {
  readonly pipeline: string;
  readonly file: string;
  /** Rows planned: every row of the rows file, or those --rows (and --shard) chose. */
  readonly rows: number;
  /** --rows, --shard: how many rows they chose of the rows file's; undefined when every row is planned. */
  readonly selection: { readonly rows: number; readonly ofRows: number } | undefined;
  /** `--shard`: the shard planned; its quota and budget are its share (`quota.share`, `budget.split`). */
  readonly shard: ShardPlan | undefined;
  /** Step instances to run (cached ones included, skipped ones not). */
  readonly instances: number;
  readonly skipped: { readonly when: number; readonly upstream: number };
  readonly lines: readonly StepLine[];
  readonly credits: {
    readonly total: number;
    readonly byModel: ReadonlyMap<string, number>;
    readonly byStep: ReadonlyMap<string, number>;
    readonly byRow: ReadonlyMap<string, number>;
    /** Instances without a price (counted as 0 when allowed). */
    readonly unpriced: number;
    /** Credits from prices the reference does not publish. */
    readonly estimatedCredits: number;
    readonly estimated: boolean;
    /** The total leaves out unpriced instances (--allow-unpriced). */
    readonly lowerBound: boolean;
  };
  readonly unpriced: readonly UnpricedGroup[];
  readonly cached: {
    readonly instances: number;
    readonly creditsSaved: number;
    /** Rows whose every step the output folder already holds. */
    readonly rows: number;
  };
  /** Rows with at least one step to send (new, changed, failed or deferred before), in sheet order. */
  readonly rowsToSend: readonly string[];
  /**
   * Results the output folder holds that the run pays for again (--redo, with the steps that use
   * them, and redos an earlier run left unfinished): counted in the credits and submits too.
   */
  readonly redo: { readonly instances: number; readonly rows: number; readonly credits: number };
  readonly requests: {
    readonly submits: number;
    readonly videos: number;
    readonly pollsExpected: number;
    readonly pollsWorst: number;
    readonly pollsPerVideoExpected: number;
    readonly pollsPerVideoWorst: number;
  };
  readonly quota: QuotaState;
  /** `--fit`: the whole rows that run tonight; everything else in the plan covers only those. */
  readonly fit: FitPlan | undefined;
  readonly budget: {
    /** The budget this run plans and runs with (a shard's share when `split`). */
    readonly maxCredits: number | undefined;
    readonly source: 'pipeline' | 'flag' | undefined;
    /** `--shard` without --max-credits: the pipeline's budget divided among `count` shards. */
    readonly split?: { readonly total: number; readonly count: number } | undefined;
  };
  readonly refused: boolean;
  readonly reasons: readonly string[];
  readonly warnings: readonly string[];
}

/** What `--fit` plans: the rows that fit tonight, those deferred, and what the rest needs. */
export interface FitPlan {
  /** The order rows are started in (sheet row indices): priority first, then the sheet's. */
  readonly order: ArrayLike<number>;
  /** What each row still needs: the run starts a row by the same numbers. */
  readonly needs: RowNeeds;
  /** Rows with something to send. */
  readonly rowsWithWork: number;
  /** Of those, the rows that fit tonight. */
  readonly rowsTonight: number;
  /** Deferred rows by what they did not fit. */
  readonly deferred: { readonly quota: number; readonly budget: number };
  /** Keys of the deferred rows, in the order they would start. */
  readonly deferredRows: readonly string[];
  /** Further quota windows (days) the deferred rows need, at a whole day's quota and budget. */
  readonly windowsMore: number;
  /** Rows that need more than a whole day's quota or the budget in the worst case: never started. */
  readonly neverFit: readonly string[];
  /** The requests of the last 24 hours (the ledger) and when the last of them leaves the window. */
  readonly freeUp: { readonly requests: number; readonly by: number } | undefined;
}
