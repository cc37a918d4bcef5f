/** The sandbox's time: real time plus an offset tests can move (to expire URLs, age the quota window). */
export class SandboxClock {
  #offset = 0;

  now(): number {
    return Date.now() + this.#offset;
  }

  advance(ms: number): void {
    this.#offset += ms;
  }
}
