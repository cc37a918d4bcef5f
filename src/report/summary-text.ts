/**
 * The summary in words, shared by every view of the report (terminal, Markdown, HTML): what the
 * run's status means, the headline figures in their order, the quota and why credits were lost.
 * Text only: each view escapes it for its format.
 */
import type { Manifest, ManifestHead, ManifestStep } from '../manifest/manifest-schema.js';
import type { RunSummary } from '../manifest/manifest-summary.js';
import { count, formatNumber } from './format.js';

/** What a run's status means for the person reading, in a few words. */
export function statusLine(manifest: ManifestHead): string {
  const meaning: Record<Manifest['status'], string> = {
    complete: 'every step is done',
    partial: 'some steps failed; the next run sends them again',
    // Said by stopped_by when it is known (stoppedLine); this only for a stop no line names.
    stopped: 'stopped early; the next run resumes',
    interrupted: 'interrupted; the next run resumes where it stopped',
    running: 'still running',
  };
  // A merge without some of its shards (merge --allow-missing): their rows are elsewhere, or not made.
  if (manifest.status === 'stopped' && manifest.stopped_by === 'missing-shards')
    return `shards are missing (${(manifest.missing_shards ?? []).join(', ')}); run them, then merge again`;
  // Nothing stopped it, yet steps wait: --fit (or --max-credits mid-run) left whole rows for later.
  if (manifest.status === 'stopped' && manifest.stopped_by === null)
    return 'rows that did not fit the quota left or the budget were deferred; the next run goes on with them';
  if (manifest.status === 'stopped') return stoppedLine(manifest) ?? meaning.stopped;
  return meaning[manifest.status];
}

/** What stopped the run and what to do, by `stopped_by`; undefined for a reason this does not know. */
function stoppedLine(manifest: ManifestHead): string | undefined {
  switch (manifest.stopped_by) {
    case 'credits':
      return 'stopped because the credits ran out (402): buy credits, then run again to resume';
    case 'quota':
      return 'stopped because the daily request quota is spent (429): run again later to resume';
    case 'auth':
      return 'stopped because the service refused the API key (401): check ASSETLINE_API_KEY, then run again to resume';
    case 'storage':
      return 'stopped because results or the journal could not be written: free the disk, then run again to resume';
    case 'unreachable':
      return `stopped because ${manifest.base_url} could not be reached: run again when it answers to resume`;
    case 'internal':
      return 'stopped by an internal error (a bug): what is journaled is kept; the next run resumes';
    default:
      return undefined;
  }
}

/**
 * The headline figures, labelled, in the order every form of the report shows them. Text only:
 * each renderer escapes it for its format.
 */
export function headlineFigures(summary: RunSummary): [label: string, value: string][] {
  const { counts, credits, requests, quota } = summary;
  const figures: [string, string][] = [
    [
      'Steps',
      `${formatNumber(counts.done)} done, ${formatNumber(counts.cached)} cached, ${formatNumber(counts.failed)} failed, ${formatNumber(counts.skipped)} skipped, ${formatNumber(counts.deferred)} deferred`,
    ],
    [
      'Credits',
      `${formatNumber(credits.used)} used of ${credits.estimated ? '~' : ''}${formatNumber(credits.planned)} planned`,
    ],
    ['Cached', `${count(counts.cached, 'step')} reused, ${formatNumber(credits.savedByCache)} credits saved`],
    ...(credits.paidTotal === undefined
      ? []
      : [['Paid', paidText(credits.paidTotal, credits.lost)] as [string, string]]),
    ['Requests', requestsText(requests)],
    [
      'Unanswered',
      summary.ambiguous.length === 0
        ? requests.sent === 0
          ? 'none: no request reached the service'
          : 'none: every request sent was answered'
        : `${count(summary.ambiguous.length, 'step')} sent again after no answer (${count(requests.ambiguous, 'attempt')}): may have been charged twice`,
    ],
    ['Quota', quotaText(quota)],
  ];
  return figures;
}

export function quotaText(quota: Manifest['totals']['quota']): string {
  if (quota.limit === null) return `${quota.plan}: limit unknown`;
  // The service's 429 is the truth, whatever the local count says.
  if (quota.refused_at)
    return `${quota.plan}: 0 of ${formatNumber(quota.limit)} requests left (the service refused for the quota at ${quota.refused_at.slice(11, 16)} UTC)`;
  const used = quota.used_24h === null ? '' : ` (${formatNumber(quota.used_24h)} used in the last 24 h)`;
  return `${quota.plan}: ${formatNumber(quota.remaining ?? 0)} of ${formatNumber(quota.limit)} requests left${used}`;
}

/** Everything paid for these steps, across runs, and what of it bought nothing kept. */
function paidText(paidTotal: number, lost: number): string {
  return `${formatNumber(paidTotal)} credits in all runs; ${lost === 0 ? 'none lost' : `${formatNumber(lost)} lost (paid for, never saved)`}`;
}

/** Why a step's credits were lost, in one line. */
export function lossText(step: ManifestStep): string {
  return (step.losses ?? []).map((loss) => `${formatNumber(loss.credits)} credits: ${loss.reason}`).join('; ');
}

/** Sent against planned, polls apart: a video that took longer than expected shows as polls. */
function requestsText(requests: Manifest['totals']['requests']): string {
  // Retries of requests that never connected are tries, not requests sent: said so when none were.
  const retries = `${formatNumber(requests.retries)} ${requests.retries === 1 ? 'retry' : 'retries'}${requests.sent === 0 && requests.retries > 0 ? ' (none connected)' : ''}`;
  if (requests.planned_submits === undefined || requests.planned_polls === undefined)
    return `${formatNumber(requests.sent)} sent of ~${formatNumber(requests.planned)} planned: ${count(requests.submits, 'submit')}, ${count(requests.polls, 'poll')}, ${formatNumber(requests.other)} other; ${retries}`;
  return (
    `${formatNumber(requests.sent)} sent of ~${formatNumber(requests.planned)} planned: submits ${formatNumber(requests.submits)} of ${formatNumber(requests.planned_submits)}, ` +
    `polls ${formatNumber(requests.polls)} of ~${formatNumber(requests.planned_polls)}, ${formatNumber(requests.other)} other; ${retries}`
  );
}
