/**
 * Whether the service can be reached at all. A request that ended without any attempt connecting
 * counts; one that reached the service (answered or not) clears the count. After `limit` such
 * requests in a row the run stops starting work, said once with the cause the last one met. A run
 * with fewer requests than that ends stopped the same way when any of them could not connect
 * (`cause`): its step was deferred, not failed.
 */

/** Requests in a row whose every attempt failed to connect before the run stops. @default */
export const UNREACHABLE_AFTER = 3;

export class Reachability {
  readonly #limit: number;
  readonly #onUnreachable: (cause: string) => void;
  #inARow = 0;
  #told = false;
  #cause: string | undefined;

  constructor(onUnreachable: (cause: string) => void, limit = UNREACHABLE_AFTER) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`expected a limit of 1 or more, got ${limit}`);
    this.#limit = limit;
    this.#onUnreachable = onUnreachable;
  }

  /** An attempt reached the service. */
  reached(): void {
    this.#inARow = 0;
  }

  /** What the last request that could not connect met; undefined while every request connected. */
  get cause(): string | undefined {
    return this.#cause;
  }

  /** A request ended with every attempt failing to connect. */
  failed(cause: string): void {
    this.#cause = cause;
    this.#inARow++;
    if (this.#inARow < this.#limit || this.#told) return;
    this.#told = true;
    this.#onUnreachable(cause);
  }
}
