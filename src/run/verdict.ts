/**
 * How a run ends: its status in the manifest and its exit code from the contract. An interrupt
 * wins over any earlier stop (the person or the CI runner asked to stop, and a resumable 130/143
 * is what they wait for); a bug that left the run hanging is the internal-error code, never 0.
 */
import { EXIT } from '../errors.js';
import type { Manifest, StepCounts } from '../manifest/manifest-schema.js';
import type { StopReason } from './run-stop.js';

export interface Verdict {
  readonly exitCode: number;
  readonly status: Manifest['status'];
}

export function verdict(stoppedBy: StopReason | undefined, counts: StepCounts, interrupt: AbortSignal): Verdict {
  if (interrupt.aborted || stoppedBy === 'interrupted')
    return { exitCode: interrupt.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint, status: 'interrupted' };
  if (stoppedBy === 'internal') return { exitCode: EXIT.internal, status: 'stopped' };
  if (stoppedBy === 'auth') return { exitCode: EXIT.authFailed, status: 'stopped' };
  if (stoppedBy === 'credits' || stoppedBy === 'quota' || stoppedBy === 'storage' || stoppedBy === 'unreachable')
    return { exitCode: EXIT.stoppedResumable, status: 'stopped' };
  if (counts.failed > 0) return { exitCode: EXIT.stepsFailed, status: 'partial' };
  if (counts.deferred > 0) return { exitCode: EXIT.stoppedResumable, status: 'stopped' };
  return { exitCode: EXIT.ok, status: 'complete' };
}

/** What the log and the terminal say, once, when the run stops starting work. */
export const STOP_MESSAGES: Readonly<Record<StopReason, string>> = {
  credits: 'out of credits (402): no new steps are started; buy credits and run again to resume (exit 4)',
  quota: 'the daily request quota is spent (429): no new steps are started; run again later to resume (exit 4)',
  auth: 'the API key was refused (401) or cannot be used: nothing more is sent; check ASSETLINE_API_KEY (exit 5)',
  storage: 'results or the journal cannot be written: no new steps are started; free the disk and run again (exit 4)',
  // Said with the base URL and what failed instead: see unreachableMessage.
  unreachable: 'the service could not be reached: no new steps are started; run again when it answers (exit 4)',
  interrupted: 'interrupted: no new steps are started',
  internal: 'internal error (a bug): the run stopped waiting; what is journaled is kept (exit 70)',
};

/** The unreachable stop, said with the base URL as configured (never the key) and what failed. */
export function unreachableMessage(baseUrl: string, cause: string): string {
  return `could not reach ${baseUrl} (${cause}): no new steps are started; run again when it answers (exit 4)`;
}
