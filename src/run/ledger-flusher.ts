/**
 * The requests a run sends, and the service's refusals for the quota, go to the request ledger
 * (the next plan reads it) once a second in one write, not one write per request; and once more
 * at the end. A ledger that cannot be written is a warning: the run goes on.
 */
import type { Logger } from 'pino';
import type { LedgerRecord, RequestLedger } from '../state/request-ledger.js';

export class LedgerFlusher {
  readonly #ledger: RequestLedger;
  readonly #logger: Logger;
  #buffer: LedgerRecord[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(ledger: RequestLedger, logger: Logger, intervalMs = 1000) {
    this.#ledger = ledger;
    this.#logger = logger;
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  add(record: LedgerRecord): void {
    this.#buffer.push(record);
  }

  async flush(): Promise<void> {
    const records = this.#buffer;
    this.#buffer = [];
    await this.#ledger
      .append(records)
      .catch((error: unknown) => this.#logger.warn(`could not write the request ledger: ${String(error)}`));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
