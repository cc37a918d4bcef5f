/**
 * Video jobs given up after a timeout may still finish, and be charged. At the end of a run each
 * abandoned request_id is asked once more; a finished one is downloaded next to the step's own
 * result and its charge is booked (paid, or lost when its result cannot be downloaded), once:
 * a job already in the books is not asked again.
 */
import type { Logger } from 'pino';
import type { InstanceContext } from './instance-runner.js';
import type { JournalRecord } from './journal-records.js';
import { applyRecord } from './journal.js';
import { extensionOf } from './output-layout.js';
import type { InstanceOutcome } from './run-outcome.js';

export async function collectAbandoned(
  outcomes: ReadonlyMap<string, InstanceOutcome>,
  context: InstanceContext & { readonly logger: Logger },
): Promise<void> {
  const { client, layout, logger, signal, state } = context;
  const book = async (entry: Extract<JournalRecord, { type: 'paid' | 'lost' }>) => {
    await context.journal.append(entry);
    applyRecord(state, entry);
  };
  for (const outcome of outcomes.values()) {
    if (outcome.operation !== 'video') continue;
    const booked = state.instances.get(outcome.key)?.booked ?? [];
    const abandoned = outcome.requestIds.filter(
      (id) => id !== (outcome.status === 'done' ? outcome.requestId : undefined) && !booked.includes(id),
    );
    for (const requestId of abandoned) {
      let credits: number;
      let url: string;
      try {
        const status = await client.videoStatus(requestId, { signal, attempts: 2 });
        if (status.state !== 'completed' || !status.url) continue;
        credits = status.creditsUsed ?? outcome.creditsPlanned;
        url = status.url;
      } catch (error) {
        logger.debug(`${outcome.key}: abandoned job ${requestId} could not be checked: ${String(error)}`);
        continue;
      }
      outcome.creditsUsed += credits;
      const target = `${layout.assetBase(outcome.rowFolder, outcome.stepId, 0)}.abandoned-${requestId}.${extensionOf('video/mp4')}`;
      try {
        const file = await client.download(url, target, 'video', { signal });
        outcome.extraFiles.push({
          path: layout.relative(file.path),
          index: 0,
          sha256: file.sha256,
          bytes: file.bytes,
          media_type: file.mediaType,
          url,
          run_id: context.runId,
        });
        await book({ type: 'paid', t: context.now(), key: outcome.key, credits, request_ids: [requestId] });
        logger.warn(
          `${outcome.key}: abandoned video job ${requestId} finished after all and was charged ${credits} credits; saved as ${layout.relative(file.path)}`,
        );
      } catch (error) {
        await book({
          type: 'lost',
          t: context.now(),
          key: outcome.key,
          credits,
          reason: `a video job given up after a timeout finished after all, and its result could not be downloaded (${String(error)})`,
          request_id: requestId,
          answer: false,
        });
        logger.warn(`${outcome.key}: abandoned video job ${requestId} was charged ${credits} credits and is lost`);
      }
    }
  }
}
