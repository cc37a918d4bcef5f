/**
 * What the sandbox saw and did, for tests and benchmarks to assert on ("charged exactly once"):
 * requests by path, status and account; charges by account and by idempotency key; every fault.
 */
export interface ChargeRecord {
  readonly account: string;
  readonly credits: number;
  readonly idempotencyKey: string | undefined;
}

/** The charge counters as `toJSON()` shows them: what a sandbox that keeps its state carries over. */
export interface ChargeTotals {
  readonly count: number;
  readonly credits: number;
  readonly by_account: Readonly<Record<string, number>>;
  readonly credits_by_account: Readonly<Record<string, number>>;
  readonly by_idempotency_key: Readonly<Record<string, number>>;
  readonly without_idempotency_key: number;
}

export class SandboxStats {
  requests = 0;
  readonly byPath = new Map<string, number>();
  readonly byStatus = new Map<number, number>();
  readonly byAccount = new Map<string, number>();
  charges = 0;
  creditsCharged = 0;
  readonly chargesByAccount = new Map<string, number>();
  readonly creditsByAccount = new Map<string, number>();
  /** Charges per idempotency key: a value above 1 is a double charge. */
  readonly chargesByIdempotencyKey = new Map<string, number>();
  chargesWithoutIdempotencyKey = 0;
  idempotentReplays = 0;
  readonly faults = new Map<string, number>();
  filesServed = 0;
  filesExpired = 0;

  request(path: string, account: string | undefined): void {
    this.requests++;
    bump(this.byPath, path);
    if (account) bump(this.byAccount, account);
  }

  answered(status: number): void {
    bump(this.byStatus, status);
  }

  charge(record: ChargeRecord): void {
    this.charges++;
    this.creditsCharged += record.credits;
    bump(this.chargesByAccount, record.account);
    bump(this.creditsByAccount, record.account, record.credits);
    if (record.idempotencyKey === undefined) this.chargesWithoutIdempotencyKey++;
    else bump(this.chargesByIdempotencyKey, record.idempotencyKey);
  }

  /** The charges of earlier sandboxes of the same state (persist/), so "charged once" spans runs. */
  restoreCharges(totals: ChargeTotals): void {
    this.charges += totals.count;
    this.creditsCharged += totals.credits;
    this.chargesWithoutIdempotencyKey += totals.without_idempotency_key;
    for (const [account, n] of Object.entries(totals.by_account)) bump(this.chargesByAccount, account, n);
    for (const [account, n] of Object.entries(totals.credits_by_account)) bump(this.creditsByAccount, account, n);
    for (const [key, n] of Object.entries(totals.by_idempotency_key)) bump(this.chargesByIdempotencyKey, key, n);
  }

  fault(kind: string): void {
    bump(this.faults, kind);
  }

  toJSON() {
    const object = <K>(map: Map<K, number>) => Object.fromEntries([...map].map(([key, value]) => [String(key), value]));
    return {
      requests: {
        total: this.requests,
        by_path: object(this.byPath),
        by_status: object(this.byStatus),
        by_account: object(this.byAccount),
      },
      charges: {
        count: this.charges,
        credits: this.creditsCharged,
        by_account: object(this.chargesByAccount),
        credits_by_account: object(this.creditsByAccount),
        by_idempotency_key: object(this.chargesByIdempotencyKey),
        without_idempotency_key: this.chargesWithoutIdempotencyKey,
      },
      idempotent_replays: this.idempotentReplays,
      faults: object(this.faults),
      files: { served: this.filesServed, expired: this.filesExpired },
    };
  }
}

function bump<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}
