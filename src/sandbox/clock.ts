/**
 * The sandbox's time: the wall clock plus an offset tests can move (to expire URLs, age the quota
 * window). Wall-clock based on purpose: a sandbox that keeps its state (persist/) writes these
 * times down, and the next one, started minutes or days later, reads them on the same scale.
 */
export class SandboxClock {
  readonly #wall: () => number;
  #offset = 0;

  /** `wall`: the clock underneath (tests pass a fake one to start a later sandbox a day later). */
  constructor(wall: () => number = Date.now) {
    this.#wall = wall;
  }

  now(): number {
    return this.#wall() + this.#offset;
  }

  advance(ms: number): void {
    this.#offset += ms;
  }
}
