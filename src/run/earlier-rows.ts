/**
 * A row the run does not take (--rows chose others) as the manifest lists it: each step as earlier
 * runs left it, from the journal. A step with a result is `cached` (its files, with the run that
 * saved them), one without is `skipped`; both with the reason `not-selected`, and nothing planned
 * or used in this run (what earlier runs paid is in their books). `when:` skips keep their reason.
 * The files are listed as the journal has them, not checked on disk: the run did not look at the row.
 */
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { JournalState } from './journal.js';
import { type InstanceOutcome, newOutcome } from './run-outcome.js';
import type { OutcomeRow } from './scheduler.js';

export function earlierRow(
  expansion: Expansion,
  state: JournalState,
  index: number,
  modelOf: (instance: StepInstance) => string | undefined,
): OutcomeRow {
  const key = expansion.rowKeys[index] ?? String(index + 1);
  const folder = expansion.rowFolder(index);
  const outcomes: InstanceOutcome[] = [];
  for (const [stepIndex, step] of expansion.pipeline.steps.entries()) {
    const skipped = expansion.skipReason(index, stepIndex);
    const outcome = newOutcome({
      key: `${key}/${step.id}`,
      rowKey: key,
      rowFolder: folder,
      stepId: step.id,
      operation: step.operation,
      model: skipped ? undefined : modelOf(expansion.instance(index, stepIndex)),
      creditsPlanned: 0,
    });
    const history = state.instances.get(outcome.key);
    if (skipped) {
      outcome.status = 'skipped';
      outcome.reason = skipped;
    } else if (history?.downloaded) {
      outcome.status = 'cached';
      outcome.reason = 'not-selected';
      outcome.files = [...history.downloaded.files];
      outcome.requestId = history.answer?.request_id;
    } else {
      outcome.status = 'skipped';
      outcome.reason = 'not-selected';
    }
    outcomes.push(outcome);
  }
  return { index, key, folder, outcomes };
}
