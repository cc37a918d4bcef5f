/**
 * What `--rows`, `--redo` and `--shard` choose, resolved once against the expanded pipeline (so a
 * typo is a usage error before anything is planned, sent or written) and handed to the plan and the
 * run. A shard is one more row filter: the rows taken are those `--rows` chose (all without it)
 * that belong to the shard.
 */
import type { Expansion } from '../pipeline/expansion.js';
import { type RedoSet, selectRedo } from './redo-selection.js';
import { RowMatcher, type RowKeys } from './row-matcher.js';
import { selectRows } from './row-selection.js';
import { type Shard, shardsOfRows } from './shard.js';

export type { RedoSet } from './redo-selection.js';

export interface SelectionFlags {
  /** `--rows`: row keys, globs over them, row numbers or ranges; each value may list several, comma-separated. */
  readonly rows?: readonly string[] | undefined;
  /** `--redo`: `ROW:STEP`, `ROW` or `*:STEP`, globs allowed in both parts. */
  readonly redo?: readonly string[] | undefined;
  /** `--shard i/n`, parsed (select/shard.ts). */
  readonly shard?: Shard | undefined;
}

/** A shard as a selection holds it: which rows are its own, and how many. */
export interface ShardScope extends Shard {
  /** Rows of the rows file in the shard (whatever --rows chose). */
  readonly rows: number;
  /** Whether a row is the shard's: its output folder, manifest and assets.csv know no other. */
  readonly includes: (rowIndex: number) => boolean;
}

export interface Selection {
  /** The rows to take, ascending; undefined: every row. */
  readonly rowOrder: Uint32Array | undefined;
  /** Whether the plan counts, and the run takes, the row. */
  readonly includesRow: (rowIndex: number) => boolean;
  /** Instances to pay for again although cached (their dependents included); undefined: none. */
  readonly redo: RedoSet | undefined;
  /** `--shard`: the rows the output folder is about; undefined: every row, unsharded. */
  readonly shard: ShardScope | undefined;
}

export const EVERYTHING: Selection = {
  rowOrder: undefined,
  includesRow: () => true,
  redo: undefined,
  shard: undefined,
};

/** @throws {UsageError} a selector names no row or no step (with the closest name when one is close). */
export function resolveSelection(expansion: Expansion, flags: SelectionFlags): Selection {
  const rowsGiven = (flags.rows?.length ?? 0) > 0;
  const redoGiven = (flags.redo?.length ?? 0) > 0;
  if (!rowsGiven && !redoGiven && !flags.shard) return EVERYTHING;
  const chooser = new Chooser(expansion, flags);
  return chooser.select(flags.shard && chooser.shard(flags.shard, shardsOfRows(chooser.rows, flags.shard.count)));
}

/**
 * The selection of each of `count` shards (`plan --shards n`), with the same --rows and --redo:
 * every row is hashed once, not once a shard.
 * @throws {UsageError} as resolveSelection.
 */
export function resolveShardSelections(
  expansion: Expansion,
  flags: Omit<SelectionFlags, 'shard'>,
  count: number,
): Selection[] {
  const chooser = new Chooser(expansion, flags);
  const shards = shardsOfRows(chooser.rows, count);
  return Array.from({ length: count }, (_, at) => chooser.select(chooser.shard({ index: at + 1, count }, shards)));
}

/** --rows read once; then a selection for each shard asked for (or for none). */
class Chooser {
  readonly rows: RowKeys;
  readonly #expansion: Expansion;
  readonly #flags: SelectionFlags;
  readonly #matcher: RowMatcher;
  /** --rows: the rows it chose, ascending; undefined without it. */
  readonly #chosen: Uint32Array | undefined;

  constructor(expansion: Expansion, flags: SelectionFlags) {
    this.#expansion = expansion;
    this.#flags = flags;
    this.rows = { count: expansion.counts.rows, key: (index) => expansion.rowKeys[index] ?? String(index + 1) };
    this.#matcher = new RowMatcher(this.rows);
    this.#chosen = (flags.rows?.length ?? 0) > 0 ? selectRows(flags.rows ?? [], this.rows, this.#matcher) : undefined;
  }

  /** `shards`: each row's shard among `shard.count`. */
  shard(shard: Shard, shards: Uint16Array): ShardScope {
    let rows = 0;
    for (const rowShard of shards) if (rowShard === shard.index) rows++;
    return { index: shard.index, count: shard.count, rows, includes: (index) => shards[index] === shard.index };
  }

  select(shard: ShardScope | undefined): Selection {
    const chosen = this.#chosen;
    const count = this.rows.count;
    const rowOrder = shard ? (chosen ?? everyRow(count)).filter((row) => shard.includes(row)) : chosen;
    const redo =
      (this.#flags.redo?.length ?? 0) > 0
        ? selectRedo(this.#flags.redo ?? [], {
            rows: this.rows,
            steps: this.#expansion.pipeline.steps,
            selected: chosen ? flagged(chosen, count) : undefined,
            scope: shard?.includes,
            matcher: this.#matcher,
          })
        : undefined;
    return { rowOrder, includesRow: rowOrder ? flagged(rowOrder, count) : () => true, redo, shard };
  }
}

function everyRow(count: number): Uint32Array {
  return Uint32Array.from({ length: count }, (_, index) => index);
}

/** Membership of ascending row indices, as a predicate. */
function flagged(order: Uint32Array, count: number): (rowIndex: number) => boolean {
  const flags = new Uint8Array(count);
  for (const index of order) flags[index] = 1;
  return (index) => flags[index] === 1;
}
