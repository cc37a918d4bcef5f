/**
 * `Idempotency-Key` on create calls: the same key (per account) within 24 hours gets the first
 * answer again and is not charged again. The answer is stored before the connection is written,
 * so a client that lost the answer to a reset still gets it on its retry.
 */
import { QUOTA_WINDOW_MS } from '../catalog/limits.js';

export interface StoredAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly at: number;
}

export class IdempotencyStore {
  readonly #answers = new Map<string, StoredAnswer>();

  find(account: string, key: string, now: number): StoredAnswer | undefined {
    const answer = this.#answers.get(`${account}\u0000${key}`);
    if (answer && now - answer.at >= QUOTA_WINDOW_MS) {
      this.#answers.delete(`${account}\u0000${key}`);
      return undefined;
    }
    return answer;
  }

  remember(account: string, key: string, answer: StoredAnswer): void {
    this.#answers.set(`${account}\u0000${key}`, answer);
  }
}
