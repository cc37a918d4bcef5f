/** A small seeded generator (mulberry32): the same seed draws the same faults and ids. */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** True with the given probability. */
  chance(probability: number | undefined): boolean {
    return probability !== undefined && probability > 0 && this.next() < probability;
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Eight hex digits, for ids. */
  hex(): string {
    return Math.floor(this.next() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  }
}
