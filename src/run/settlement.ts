/**
 * When is the work sent under one Idempotency-Key settled, and what did it cost? The rule that
 * keeps assetline from paying twice: a step that may have been charged is sent again under the key
 * that may have been charged (the service replays the answer it gave) until an answer settles it.
 * Only an answer, or a definite refusal, settles a key; then, and only then, new work for the step
 * gets a new key (a new generation).
 */
import type { InstanceHistory, JournalRecord } from './journal-records.js';

type Failed = Extract<JournalRecord, { type: 'failed' }>;
type Answered = Extract<JournalRecord, { type: 'answered' }>;

/**
 * A 4xx other than 408 (timeout), 409 (conflict: another request with the key in flight) and 429
 * (quota or throttling): the service looked at the request and did not do it.
 */
export function isDefiniteRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
}

/**
 * A failure settles its key when sending the same request again cannot turn out differently: a
 * definite refusal, or a video job the service ended in `error` (the key would replay that job).
 * No answer, 5xx, quota, a stop, a file that could not be written, a video job that is only slow:
 * none of them settles it, so the next run sends again under the same key.
 */
export function failureSettlesKey(failed: Pick<Failed, 'status' | 'code'>): boolean {
  return isDefiniteRefusal(failed.status) || failed.code === 'video_error';
}

/** What an answer cost: what the service said, else what was planned. */
export function creditsOfAnswer(answer: Answered, history: Pick<InstanceHistory, 'work'>): number {
  return answer.credits_used ?? history.work?.creditsPlanned ?? 0;
}

/** Every credit charged for the instance, across all runs, as far as the journal knows. */
export function paidTotal(history: InstanceHistory | undefined): number {
  if (!history) return 0;
  return history.paidEarlier + (history.answer ? creditsOfAnswer(history.answer, history) : 0);
}

export function lostTotal(history: InstanceHistory | undefined): number {
  return history ? creditsOf(history.losses) : 0;
}

/** The credits of some losses, added up. */
export function creditsOf(losses: readonly { readonly credits: number }[]): number {
  return losses.reduce((sum, loss) => sum + loss.credits, 0);
}
