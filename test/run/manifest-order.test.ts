/** Where every row goes in the manifest when a run takes only some rows, or takes them in another order. */
import { describe, expect, it } from 'vitest';
import { type ManifestPlace, ManifestOrder } from '../../src/run/manifest-order.js';

const places = (order: ManifestOrder) =>
  [...order.walk()].map((place: ManifestPlace) => ('taken' in place ? `t${place.taken}` : `o${place.other}`));

describe('the manifest order', () => {
  it('is the rows taken when the run takes every row in file order', () => {
    for (const order of [new ManifestOrder(3), new ManifestOrder(3, Uint32Array.of(0, 1, 2))]) {
      expect(order.everyRow).toBe(true);
      expect(places(order)).toEqual(['t0', 't1', 't2']);
      expect([order.indexOf(2), order.slotOf(1), order.rowAt(1)]).toEqual([2, 1, 1]);
    }
  });

  it('lists the rows not taken in their places in the file when rows are taken in file order', () => {
    const order = new ManifestOrder(6, Uint32Array.of(1, 4));
    expect(order.everyRow).toBe(false);
    expect(places(order)).toEqual(['o0', 't0', 'o2', 'o3', 't1', 'o5']);
    // Each row taken is at its own index in the file.
    expect([order.indexOf(0), order.indexOf(1)]).toEqual([1, 4]);
    expect([order.slotOf(4), order.slotOf(3), order.rowAt(1)]).toEqual([1, -1, 4]);
    expect(order.taken).toBe(2);
  });

  it('lists every row once in another order: each row not taken before the first later row taken', () => {
    const order = new ManifestOrder(6, Uint32Array.of(4, 1));
    expect(places(order)).toEqual(['o0', 'o2', 'o3', 't0', 't1', 'o5']);
    expect([order.indexOf(0), order.indexOf(1)]).toEqual([3, 4]);
  });

  it("lists only a shard's rows: those taken and the shard's others, never another shard's", () => {
    // Rows 0 to 7; the shard holds 1, 2, 4 and 6, and the run takes 6 and 2 (--rows, priority).
    const shard = (row: number) => [1, 2, 4, 6].includes(row);
    const order = new ManifestOrder(8, Uint32Array.of(6, 2), shard);
    expect(order.everyRow).toBe(false);
    expect(places(order)).toEqual(['o1', 'o4', 't0', 't1']);
    expect(order.rows).toBe(4);
    expect([order.indexOf(0), order.indexOf(1)]).toEqual([2, 3]);
    // Every row of the shard taken, in file order: still the shard's rows only.
    const whole = new ManifestOrder(8, Uint32Array.of(1, 2, 4, 6), shard);
    expect(places(whole)).toEqual(['t0', 't1', 't2', 't3']);
    expect(whole.rows).toBe(4);
  });

  it('has nothing but rows not taken when the run takes none', () => {
    expect(places(new ManifestOrder(2, new Uint32Array(0)))).toEqual(['o0', 'o1']);
  });
});
