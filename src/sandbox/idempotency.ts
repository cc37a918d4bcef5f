/**
 * `Idempotency-Key` on create calls: the same key (per account) within 24 hours gets the first
 * answer again and is not charged again. The answer is stored before the connection is written,
 * so a client that lost the answer to a reset still gets it on its retry; a retry that arrives
 * while the first request is still being worked on waits for its answer instead of doing the
 * work (and the charge) a second time.
 */
import { QUOTA_WINDOW_MS } from '../catalog/limits.js';

export interface StoredAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly at: number;
}

export class IdempotencyStore {
  readonly #answers = new Map<string, StoredAnswer>();
  readonly #inFlight = new Map<string, Promise<StoredAnswer>>();

  /** The answer of a request with this key that is still being worked on. */
  pending(account: string, key: string): Promise<StoredAnswer> | undefined {
    return this.#inFlight.get(`${account}\u0000${key}`);
  }

  /** Mark a key as being worked on; call the result with the answer (stored and shared). */
  begin(account: string, key: string): (answer: StoredAnswer) => void {
    const id = `${account}\u0000${key}`;
    let settle: (answer: StoredAnswer) => void = () => undefined;
    this.#inFlight.set(id, new Promise<StoredAnswer>((resolve) => (settle = resolve)));
    return (answer) => {
      this.#answers.set(id, answer);
      this.#inFlight.delete(id);
      settle(answer);
    };
  }

  /** An answer an earlier sandbox of the same state gave (persist/). */
  restore(account: string, key: string, answer: StoredAnswer): void {
    this.#answers.set(`${account}\u0000${key}`, answer);
  }

  find(account: string, key: string, now: number): StoredAnswer | undefined {
    const answer = this.#answers.get(`${account}\u0000${key}`);
    if (answer && now - answer.at >= QUOTA_WINDOW_MS) {
      this.#answers.delete(`${account}\u0000${key}`);
      return undefined;
    }
    return answer;
  }
}
