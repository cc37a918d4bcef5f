/**
 * Where each row of the rows file goes in the manifest when a run does not take every row (--rows)
 * or takes them in another order. Every row is listed once: the rows taken in the order they are
 * taken, and each row not taken just before the first row taken after it in the file (so with rows
 * taken in file order, the manifest is in file order). Places are numbers: with 100,000 rows this
 * is two typed arrays, and walking it makes no row. A shard's run (--shard) lists only the shard's
 * rows: the others belong to another folder's manifest.
 */

/** A place in the manifest: the `at`-th row taken, or a row the run does not take. */
export type ManifestPlace = { readonly taken: number } | { readonly other: number };

export class ManifestOrder {
  /** Rows in the manifest: every row of the rows file (of the shard). */
  readonly rows: number;
  /** Rows the run takes. */
  readonly taken: number;
  readonly #order: ArrayLike<number> | undefined;
  /** Rows of the rows file. */
  readonly #fileRows: number;
  /** The rows the manifest lists; undefined: every row. */
  readonly #listed: ((row: number) => boolean) | undefined;
  /** Row index to its place in the order, -1 for a row not taken. */
  readonly #slot: Int32Array | undefined;
  /** The manifest index of each row taken, by its place in the order. */
  readonly #index: Uint32Array | undefined;

  /**
   * `order`: the row indices the run takes, in the order it takes them; undefined: every row, in
   * order. `listed`: the rows the manifest lists (a shard's), those taken among them; undefined:
   * every row of the rows file.
   */
  constructor(rows: number, order?: ArrayLike<number>, listed?: (row: number) => boolean) {
    this.#fileRows = rows;
    this.rows = rows;
    this.taken = order?.length ?? rows;
    if (!order || (!listed && isEveryRow(order, rows))) return;
    this.#order = order;
    this.#listed = listed;
    this.#slot = new Int32Array(rows).fill(-1);
    for (let at = 0; at < order.length; at++) this.#slot[order[at] as number] = at;
    this.#index = new Uint32Array(order.length);
    let index = 0;
    for (const place of this.walk()) {
      if ('taken' in place) this.#index[place.taken] = index;
      index++;
    }
    this.rows = index;
  }

  /** Every row is taken, in file order: the manifest's rows are the rows taken. */
  get everyRow(): boolean {
    return this.#order === undefined;
  }

  /** The row index of the `at`-th row taken. */
  rowAt(at: number): number {
    return this.#order ? (this.#order[at] as number) : at;
  }

  /** The place in the order of a row taken, or -1. */
  slotOf(row: number): number {
    return this.#slot ? (this.#slot[row] as number) : row;
  }

  /** The manifest index of the `at`-th row taken. */
  indexOf(at: number): number {
    return this.#index ? (this.#index[at] as number) : at;
  }

  /** Every place in manifest order. */
  *walk(): Generator<ManifestPlace> {
    const order = this.#order;
    const slot = this.#slot;
    if (!order || !slot) {
      for (let at = 0; at < this.rows; at++) yield { taken: at };
      return;
    }
    const listed = this.#listed ?? (() => true);
    const other = (row: number) => (slot[row] as number) < 0 && listed(row);
    let next = 0;
    let furthest = -1;
    for (let at = 0; at < order.length; at++) {
      furthest = Math.max(furthest, order[at] as number);
      for (; next < furthest; next++) if (other(next)) yield { other: next };
      yield { taken: at };
    }
    for (; next < this.#fileRows; next++) if (other(next)) yield { other: next };
  }
}

function isEveryRow(order: ArrayLike<number>, rows: number): boolean {
  if (order.length !== rows) return false;
  for (let at = 0; at < rows; at++) if (order[at] !== at) return false;
  return true;
}
