/**
 * What `--rows` and `--redo` choose, resolved once against the expanded pipeline (so a typo is a
 * usage error before anything is planned, sent or written) and handed to the plan and the run.
 */
import type { Expansion } from '../pipeline/expansion.js';
import { type RedoSet, selectRedo } from './redo-selection.js';
import { RowMatcher, type RowKeys } from './row-matcher.js';
import { selectRows } from './row-selection.js';

export type { RedoSet } from './redo-selection.js';

export interface SelectionFlags {
  /** `--rows`: row keys, globs over them, row numbers or ranges; each value may list several, comma-separated. */
  readonly rows?: readonly string[] | undefined;
  /** `--redo`: `ROW:STEP`, `ROW` or `*:STEP`, globs allowed in both parts. */
  readonly redo?: readonly string[] | undefined;
}

export interface Selection {
  /** The rows to take, ascending; undefined: every row. */
  readonly rowOrder: Uint32Array | undefined;
  /** Whether the plan counts, and the run takes, the row. */
  readonly includesRow: (rowIndex: number) => boolean;
  /** Instances to pay for again although cached (their dependents included); undefined: none. */
  readonly redo: RedoSet | undefined;
}

export const EVERYTHING: Selection = { rowOrder: undefined, includesRow: () => true, redo: undefined };

/** @throws {UsageError} a selector names no row or no step (with the closest name when one is close). */
export function resolveSelection(expansion: Expansion, flags: SelectionFlags): Selection {
  const rowsGiven = (flags.rows?.length ?? 0) > 0;
  const redoGiven = (flags.redo?.length ?? 0) > 0;
  if (!rowsGiven && !redoGiven) return EVERYTHING;
  const rows: RowKeys = {
    count: expansion.counts.rows,
    key: (index) => expansion.rowKeys[index] ?? String(index + 1),
  };
  const matcher = new RowMatcher(rows);
  const rowOrder = rowsGiven ? selectRows(flags.rows ?? [], rows, matcher) : undefined;
  let includesRow: (rowIndex: number) => boolean = () => true;
  if (rowOrder) {
    const chosen = new Uint8Array(rows.count);
    for (const index of rowOrder) chosen[index] = 1;
    includesRow = (index) => chosen[index] === 1;
  }
  const redo = redoGiven
    ? selectRedo(flags.redo ?? [], {
        rows,
        steps: expansion.pipeline.steps,
        selected: rowOrder ? includesRow : undefined,
        matcher,
      })
    : undefined;
  return { rowOrder, includesRow, redo };
}
