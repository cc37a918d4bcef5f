/**
 * What the journal records, one JSON line each, in the order the side effects happen: the intent
 * (with the idempotency key, saved before the first request), a video submission's request_id
 * (saved before polling), the answer (saved before downloading), the files, or the failure. The
 * books of each instance ride along: credits given up (`lost`) and, after compaction, what was
 * paid in earlier generations (`paid`), so `credits.paid_total` survives every rerun.
 */
export interface JournalFile {
  /** Relative to the pipeline's output folder. */
  readonly path: string;
  readonly index: number;
  readonly sha256: string;
  readonly bytes: number;
  readonly media_type: string;
  readonly url: string;
  readonly width?: number;
  readonly height?: number;
  readonly duration_seconds?: number;
  /** The run that saved the file from the service's answer (a copy made from the cache keeps it). */
  readonly run_id?: string;
}

export type JournalRecord =
  | { readonly type: 'run'; readonly t: number; readonly run_id: string }
  | {
      readonly type: 'intent';
      readonly t: number;
      readonly key: string;
      readonly fingerprint: string;
      readonly generation: number;
      readonly idempotency_key: string;
      /** Written by compaction: the key's work was settled by an answer since given up. */
      readonly settled?: boolean;
      /** A redo (--redo): a cached result paid for again on purpose; resolved by the next run if unfinished. */
      readonly redo?: boolean;
      /** What the work is, so a report can be rebuilt from the journal alone (absent before 0.1). */
      readonly operation?: string;
      readonly model?: string | null;
      readonly credits_planned?: number;
    }
  | {
      readonly type: 'submitted';
      readonly t: number;
      readonly key: string;
      readonly request_id: string;
      readonly idempotency_key: string | undefined;
    }
  | {
      readonly type: 'answered';
      readonly t: number;
      readonly key: string;
      readonly request_id: string | undefined;
      readonly urls: readonly string[];
      readonly credits_used: number | undefined;
    }
  | {
      readonly type: 'downloaded';
      readonly t: number;
      readonly key: string;
      readonly fingerprint: string;
      readonly files: readonly JournalFile[];
    }
  | {
      readonly type: 'failed';
      readonly t: number;
      readonly key: string;
      readonly kind: string;
      readonly status: number | undefined;
      readonly code: string;
      readonly message: string;
      readonly request_id: string | undefined;
    }
  | {
      /** Credits paid for a result that will never be saved (its URL expired before download...). */
      readonly type: 'lost';
      readonly t: number;
      readonly key: string;
      readonly credits: number;
      /** Why, in words a report can show: "expired before download", "abandoned video job"... */
      readonly reason: string;
      readonly request_id: string | undefined;
      /** The instance's current answer is the one given up (its work must be done again). */
      readonly answer: boolean;
    }
  | {
      /** Credits paid for the instance apart from its current answer and its losses (written by compaction). */
      readonly type: 'paid';
      readonly t: number;
      readonly key: string;
      readonly credits: number;
      /** Video jobs given up after a timeout whose charge this books (so none is booked twice). */
      readonly request_ids?: readonly string[];
    }
  | {
      readonly type: 'ambiguous';
      readonly t: number;
      readonly key: string;
      readonly attempt: number;
      readonly reason: string;
    };

export type LostRecord = Extract<JournalRecord, { type: 'lost' }>;

/** What the journal knows of one instance: its latest intent on, and its books across all of them. */
export interface InstanceHistory {
  fingerprint?: string;
  /** How many intents with a recorded outcome came before: the next idempotency key's generation. */
  generation: number;
  idempotencyKey?: string;
  /**
   * The current key's work is settled: it was answered, or definitely refused. Until then every
   * send uses the same key (the service replays an answer it gave); after, new work needs a new key.
   */
  settled: boolean;
  /** Credits the service charged for this instance apart from its current answer, across all runs. */
  paidEarlier: number;
  /** Credits paid for results never saved, with why. */
  losses: LostRecord[];
  /** Abandoned video jobs whose charge is already in the books. */
  booked: string[];
  /** The current key's work is a redo (--redo) of a result the instance had. */
  redo: boolean;
  /** What the latest intent said the work is. */
  work?: InstanceWork;
  /** Every video submission, oldest first. */
  requestIds: string[];
  answer?: Extract<JournalRecord, { type: 'answered' }>;
  downloaded?: Extract<JournalRecord, { type: 'downloaded' }>;
  failed?: Extract<JournalRecord, { type: 'failed' }>;
  ambiguous: number;
}

/** A step instance's operation, model and planned credits, as its intent recorded them. */
export interface InstanceWork {
  readonly operation: string;
  readonly model: string | null;
  readonly creditsPlanned: number;
}
