/**
 * A whole run: lock the output folder, open the journal, work out what earlier runs cover, plan
 * and refuse what does not fit (nothing sent), then schedule every instance through the client,
 * keep the manifest and the request ledger current, look once more at abandoned video jobs, and
 * finish with the manifest and the exit code of the contract.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { ApiClient } from '../api/api-client.js';
import type { SecretKey } from '../api/secret-key.js';
import { RESULT_RETENTION_MS } from '../catalog/limits.js';
import { EXIT } from '../errors.js';
import type { Expansion } from '../pipeline/expansion.js';
import type { Plan } from '../plan/plan-model.js';
import { preflight } from '../plan/preflight.js';
import { priceInstance } from '../plan/price-instance.js';
import { type LedgerRecord, ledgerKeyId, RequestLedger } from '../state/request-ledger.js';
import { collectAbandoned } from './abandoned-jobs.js';
import { buildManifest, newRequestCounters, type RunRecord, stepCounts } from './build-manifest.js';
import { probeCache } from './cache-probe.js';
import { FileHasher } from './fingerprint.js';
import { runInstance } from './instance-runner.js';
import { Journal } from './journal.js';
import type { Manifest } from './manifest-schema.js';
import { ThrottledWriter, writeAtomically } from './manifest-writer.js';
import { reportHtml } from '../report/report-html.js';
import { summarize } from '../report/run-summary.js';
import { OutputLayout } from './output-layout.js';
import { Progress } from './progress.js';
import { ResultCache } from './result-cache.js';
import type { InstanceOutcome } from './run-outcome.js';
import { RunLock } from './run-lock.js';
import { Scheduler, type StopReason } from './scheduler.js';

/** After an interrupt, how long requests in flight may finish before they are cancelled. */
export const GRACE_MS = 4000;

export interface RunOptions {
  readonly outRoot: string;
  readonly stateDir: string;
  readonly fresh: boolean;
  readonly allowUnpriced: boolean;
  readonly maxCredits?: number | undefined;
  readonly quotaUsed?: number | undefined;
  readonly baseUrl: string;
  readonly key: SecretKey;
  /** The key's text is needed only for the ledger's hash. */
  readonly ledgerKey: string;
  readonly sandbox: boolean;
  readonly logger: Logger;
  readonly progress: 'bar' | 'lines' | 'off';
  /** Aborted on SIGINT/SIGTERM; the reason is the signal's name. */
  readonly interrupt: AbortSignal;
  readonly warnings: readonly string[];
  readonly videoImageMaxBytes?: number;
  /** --concurrency: wins over the pipeline's total. */
  readonly concurrency?: number | undefined;
  /** The clock for result URL freshness and the journal (tests share the sandbox's). */
  readonly now?: () => number;
}

export interface RunResult {
  readonly exitCode: number;
  readonly plan: Plan;
  readonly manifest: Manifest | undefined;
  readonly manifestPath: string | undefined;
}

export async function runPipeline(expansion: Expansion, options: RunOptions): Promise<RunResult> {
  const { pipeline } = expansion;
  const { logger } = options;
  const layout = new OutputLayout(options.outRoot, pipeline.name);
  await mkdir(layout.dir, { recursive: true });
  const lock = await RunLock.acquire(layout.lock);
  const startedAt = Date.now();
  const runId = `${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}-${randomBytes(2).toString('hex')}`;
  const { journal, state } = await Journal.open(layout.journal, { fresh: options.fresh, now: startedAt });
  try {
    const cache = new ResultCache(state, layout);
    const hasher = new FileHasher();
    const cached = await probeCache(expansion, cache, hasher);
    const ledger = new RequestLedger(options.stateDir, ledgerKeyId(options.ledgerKey));
    const plan = await preflight(expansion, {
      allowUnpriced: options.allowUnpriced,
      stateDir: options.stateDir,
      ledgerKeyId: ledgerKeyId(options.ledgerKey),
      now: startedAt,
      isCached: (instance) => cached.has(instance.key),
      warnings: options.warnings,
      ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
      ...(options.quotaUsed !== undefined && { quotaUsed: options.quotaUsed }),
    });
    for (const warning of plan.warnings) logger.warn(warning);
    if (plan.refused) {
      for (const reason of plan.reasons) logger.error(`refused: ${reason}`);
      return { exitCode: EXIT.preflightRefused, plan, manifest: undefined, manifestPath: undefined };
    }
    logger.info(
      {
        credits: plan.credits.total,
        requests: plan.requests.submits + plan.requests.pollsExpected,
        cached: cached.size,
      },
      `running ${pipeline.name}: ${plan.instances} steps, ${plan.credits.total} credits planned, ${cached.size} cached`,
    );
    await journal.append({ type: 'run', t: startedAt, run_id: runId });
    return await execute(expansion, options, { layout, journal, state, cache, hasher, ledger, plan, runId, startedAt });
  } finally {
    await journal.close();
    await lock.release();
  }
}

interface Prepared {
  readonly layout: OutputLayout;
  readonly journal: Journal;
  readonly state: Awaited<ReturnType<typeof Journal.open>>['state'];
  readonly cache: ResultCache;
  readonly hasher: FileHasher;
  readonly ledger: RequestLedger;
  readonly plan: Plan;
  readonly runId: string;
  readonly startedAt: number;
}

async function execute(expansion: Expansion, options: RunOptions, prepared: Prepared): Promise<RunResult> {
  const { pipeline } = expansion;
  const { logger } = options;
  const { layout, journal, plan } = prepared;
  const inFlight = new AbortController();
  // Every request in flight (up to the concurrency, plus polls and downloads) listens for the stop.
  setMaxListeners(0, inFlight.signal);
  const counters = newRequestCounters();
  const ledgerBuffer: LedgerRecord[] = [];
  /** Instances by the idempotency key of their request (resubmissions share the step's). */
  const byIdempotencyKey = new Map<string, InstanceOutcome>();
  const outcomeOf = (key: string | undefined) =>
    key === undefined ? undefined : byIdempotencyKey.get(key.replace(/\/resubmit-\d+$/, ''));

  const client = new ApiClient({
    baseUrl: options.baseUrl,
    key: options.key,
    api: pipeline.api,
    // Downloads share the pool with API calls (the sandbox serves both): room for both at full concurrency.
    connections: (options.concurrency ?? pipeline.concurrency.total) * 2,
    ...(options.videoImageMaxBytes !== undefined && { videoImageMaxBytes: options.videoImageMaxBytes }),
    events: {
      requestSent: (event) => {
        counters.sent++;
        counters[event.kind === 'submit' ? 'submits' : event.kind === 'poll' ? 'polls' : 'other']++;
        ledgerBuffer.push({ at: event.at, kind: event.kind });
        const outcome = outcomeOf(event.idempotencyKey);
        if (outcome && event.kind === 'submit') outcome.attempts++;
      },
      ambiguous: (event) => {
        counters.ambiguous++;
        const outcome = outcomeOf(event.idempotencyKey);
        if (outcome) outcome.ambiguous++;
        logger.warn(
          { path: event.path, attempt: event.attempt },
          `no answer to ${event.method} ${event.path} (${event.reason}): sent again under the same Idempotency-Key`,
        );
      },
      retry: (event) => {
        counters.retries++;
        logger.debug(
          { path: event.path, attempt: event.attempt, delay_ms: event.delayMs },
          `retrying ${event.path} after ${event.reason}`,
        );
      },
    },
  });
  const flushLedger = async () => {
    const records = ledgerBuffer.splice(0);
    await prepared.ledger
      .append(records)
      .catch((error: unknown) => logger.warn(`could not write the request ledger: ${String(error)}`));
  };
  const ledgerTimer = setInterval(() => void flushLedger(), 1000);
  ledgerTimer.unref();

  const record = (
    status: RunRecord['status'],
    stoppedBy: string | undefined,
    exitCode: number | undefined,
    finishedAt?: number,
  ): RunRecord => ({
    pipeline: pipeline.name,
    pipelineFile: pipeline.file,
    runId: prepared.runId,
    startedAt: prepared.startedAt,
    finishedAt,
    status,
    stoppedBy,
    exitCode,
    sandbox: options.sandbox,
    baseUrl: options.baseUrl,
    rows: scheduler.rows,
    outcomes: scheduler.outcomes,
    requests: counters,
    plan,
  });
  const writer = new ThrottledWriter(() =>
    writeAtomically(
      layout.manifest,
      `${JSON.stringify(buildManifest(record('running', undefined, undefined)), null, 2)}\n`,
    ),
  );
  const progress = new Progress(options.progress, plan.instances, logger);
  let settled = 0;
  let videosWaiting = 0;

  const scheduler: Scheduler = new Scheduler({
    expansion,
    concurrency: options.concurrency,
    maxCredits: plan.budget.maxCredits,
    plannedCredits: (instance) => {
      const price = priceInstance(instance, pipeline.pricing);
      return price.priced ? price.credits : 0;
    },
    modelOf: (instance) => ('model' in instance.params ? instance.params.model : undefined),
    runOne: async (instance, step, folder, outcome, upstream, slot) => {
      if (instance.operation === 'video') videosWaiting++;
      try {
        const stop = await runInstance(instance, step, folder, outcome, upstream, {
          pipelineName: pipeline.name,
          client,
          layout,
          journal,
          state: prepared.state,
          cache: prepared.cache,
          hasher: prepared.hasher,
          retentionMs: RESULT_RETENTION_MS,
          now: options.now ?? Date.now,
          signal: inFlight.signal,
          slot,
          bind: (idempotencyKey) => byIdempotencyKey.set(idempotencyKey, outcome),
        });
        if (outcome.status === 'failed')
          logger.error(
            { step: outcome.key, code: outcome.error?.code },
            `${outcome.key} failed: ${outcome.error?.message ?? ''}`,
          );
        if (stop === 'auth') inFlight.abort('auth');
        if (stop)
          logger.error(
            `${stop === 'auth' ? 'the API key was refused' : stop === 'credits' ? 'out of credits' : 'the daily quota is spent'}: no new steps are started`,
          );
        return stop;
      } finally {
        if (instance.operation === 'video') videosWaiting--;
      }
    },
    onSettled: () => {
      settled++;
      progress.update({
        settled,
        total: plan.instances,
        creditsUsed: scheduler.creditsUsed,
        creditsPlanned: plan.credits.total,
        videosWaiting,
      });
      writer.request();
    },
  });

  const onInterrupt = () => {
    logger.warn(
      `${String(options.interrupt.reason)}: no new steps are started; requests in flight get ${GRACE_MS / 1000} s to finish`,
    );
    scheduler.stop('interrupted');
    setTimeout(() => inFlight.abort('interrupted'), GRACE_MS).unref();
  };
  if (options.interrupt.aborted) onInterrupt();
  else options.interrupt.addEventListener('abort', onInterrupt, { once: true });

  const result = await scheduler.run();
  options.interrupt.removeEventListener('abort', onInterrupt);
  progress.stop();

  if (!result.stoppedBy) {
    await collectAbandoned(result.outcomes, client, layout, logger, inFlight.signal);
  }
  clearInterval(ledgerTimer);
  await flushLedger();
  await client.close();

  const counts = stepCounts(result.outcomes.values());
  const { exitCode, status } = verdict(result.stoppedBy, counts, options.interrupt);
  const manifest = buildManifest(record(status, result.stoppedBy, exitCode, Date.now()));
  await writer.stop();
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await Promise.all([
    writeAtomically(layout.manifest, text, [layout.runManifest(prepared.runId)]),
    writeAtomically(layout.report, reportHtml(summarize(manifest))),
  ]);
  logger.info({ steps: counts, credits: manifest.totals.credits.used, requests: counters.sent }, `finished: ${status}`);
  return { exitCode, plan, manifest, manifestPath: layout.manifest };
}

function verdict(
  stoppedBy: StopReason | undefined,
  counts: ReturnType<typeof stepCounts>,
  interrupt: AbortSignal,
): { exitCode: number; status: Manifest['status'] } {
  if (stoppedBy === 'interrupted')
    return { exitCode: interrupt.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint, status: 'interrupted' };
  if (stoppedBy === 'auth') return { exitCode: EXIT.authFailed, status: 'stopped' };
  if (stoppedBy === 'credits' || stoppedBy === 'quota') return { exitCode: EXIT.stoppedResumable, status: 'stopped' };
  if (counts.failed > 0) return { exitCode: EXIT.stepsFailed, status: 'partial' };
  if (counts.deferred > 0) return { exitCode: EXIT.stoppedResumable, status: 'stopped' };
  return { exitCode: EXIT.ok, status: 'complete' };
}
