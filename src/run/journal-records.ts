/**
 * What the journal records, one JSON line each, in the order the side effects happen: the intent
 * (with the idempotency key, saved before the first request), a video submission's request_id
 * (saved before polling), the answer (saved before downloading), the files, or the failure.
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
      readonly type: 'ambiguous';
      readonly t: number;
      readonly key: string;
      readonly attempt: number;
      readonly reason: string;
    };

/** What the journal knows of one instance, from its latest intent on. */
export interface InstanceHistory {
  fingerprint?: string;
  /** How many intents with a recorded outcome came before: the next idempotency key's generation. */
  generation: number;
  idempotencyKey?: string;
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
