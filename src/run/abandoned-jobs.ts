/**
 * Video jobs given up after a timeout may still finish, and be charged. At the end of a run each
 * abandoned request_id is asked once more; a finished one is downloaded next to the step's own
 * result and reported, since it was paid for.
 */
import type { Logger } from 'pino';
import type { ApiClient } from '../api/api-client.js';
import { extensionOf, type OutputLayout } from './output-layout.js';
import type { InstanceOutcome } from './run-outcome.js';

export async function collectAbandoned(
  outcomes: ReadonlyMap<string, InstanceOutcome>,
  client: ApiClient,
  layout: OutputLayout,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  for (const outcome of outcomes.values()) {
    if (outcome.operation !== 'video') continue;
    const abandoned = outcome.requestIds.filter(
      (id) => id !== (outcome.status === 'done' ? outcome.requestId : undefined),
    );
    for (const requestId of abandoned) {
      try {
        const state = await client.videoStatus(requestId, { signal, attempts: 2 });
        if (state.state !== 'completed' || !state.url) continue;
        const target = `${layout.assetBase(outcome.rowFolder, outcome.stepId, 0)}.abandoned-${requestId}.${extensionOf('video/mp4')}`;
        const file = await client.download(state.url, target, 'video', { signal });
        outcome.extraFiles.push({
          path: layout.relative(file.path),
          index: 0,
          sha256: file.sha256,
          bytes: file.bytes,
          media_type: file.mediaType,
          url: state.url,
        });
        logger.warn(
          `${outcome.key}: abandoned video job ${requestId} finished after all and was charged ${state.creditsUsed ?? '?'} credits; saved as ${layout.relative(file.path)}`,
        );
      } catch (error) {
        logger.debug(`${outcome.key}: abandoned job ${requestId} could not be checked: ${String(error)}`);
      }
    }
  }
}
