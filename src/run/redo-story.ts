/**
 * What a redo (--redo) does with an instance's story in the journal. A redo starts a new story:
 * a new idempotency key (salted with the run's id, see fingerprint.ts), its intent marked `redo`
 * and journaled before anything is sent. It never starts over a story that is not finished (sent
 * and not settled, or answered and not yet saved): that work is resolved under its own key first,
 * since it may have been paid for. A redo journaled and not finished is resolved by the next run
 * whether or not that run asks for it again, so a crash in the middle of a redo never pays twice;
 * instances whose redo had not started keep their cached results.
 */
import type { StepInstance } from '../pipeline/expansion.js';
import type { RedoSet } from '../select/redo-selection.js';
import type { InstanceHistory } from './journal-records.js';
import type { JournalState } from './journal.js';

/** `none`: no redo; `continue`: resolve the unfinished story; `start`: a new story, paid again. */
export type RedoStep = 'none' | 'continue' | 'start';

/** The current key's work was sent and not settled, or answered and not saved. */
export function unfinished(history: InstanceHistory | undefined, workFingerprint?: string): boolean {
  return (
    history !== undefined &&
    history.idempotencyKey !== undefined &&
    history.downloaded === undefined &&
    (!history.settled || history.answer !== undefined) &&
    (workFingerprint === undefined || history.fingerprint === workFingerprint)
  );
}

/** A redo journaled and not finished: the next run resolves it, asked again or not. */
export function isOpenRedo(history: InstanceHistory | undefined, workFingerprint?: string): boolean {
  return history?.redo === true && unfinished(history, workFingerprint);
}

/** What to do with an instance whose redo was asked for (`asked`), or not, given its story. */
export function redoStep(history: InstanceHistory | undefined, workFingerprint: string, asked: boolean): RedoStep {
  if (isOpenRedo(history, workFingerprint)) return 'continue';
  if (!asked) return 'none';
  return unfinished(history, workFingerprint) ? 'continue' : 'start';
}

/**
 * The instances a run sends whatever the cache holds: those --redo names (their dependents
 * included), and redos an earlier run left unfinished. Undefined when there are none, so a run
 * without redos looks nothing up twice.
 */
export function forcedInstances(
  redo: RedoSet | undefined,
  state: JournalState,
): ((instance: StepInstance) => boolean) | undefined {
  let open = false;
  for (const history of state.instances.values()) {
    if (isOpenRedo(history)) {
      open = true;
      break;
    }
  }
  if (!redo && !open) return undefined;
  return (instance) =>
    (redo?.has(instance.rowIndex, instance.stepIndex) ?? false) || isOpenRedo(state.instances.get(instance.key));
}
