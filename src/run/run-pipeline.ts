/**
 * A whole run: lock the output folder, open the journal, work out what earlier runs cover, plan
 * and refuse what does not fit (nothing sent), then schedule every instance through the client,
 * keep the manifest and the request ledger current, look once more at abandoned video jobs, and
 * finish with the manifest and the exit code of the contract.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { ApiClient } from '../api/api-client.js';
import type { ClientEvents, ServiceRefused } from '../api/client-events.js';
import { REAL_ENVIRONMENT } from '../api/retry.js';
import type { OriginRoute } from '../api/origin-route.js';
import type { SecretKey } from '../api/secret-key.js';
import { RESULT_RETENTION_MS } from '../catalog/limits.js';
import { EXIT } from '../errors.js';
import type { Manifest, StepCounts } from '../manifest/manifest-schema.js';
import type { RunSummary } from '../manifest/manifest-summary.js';
import { ThrottledWriter } from '../manifest/manifest-writer.js';
import type { Expansion, StepInstance } from '../pipeline/expansion.js';
import type { Plan } from '../plan/plan-model.js';
import { preflight, takenRows } from '../plan/preflight.js';
import { priceInstance } from '../plan/price-instance.js';
import { requestRoom } from '../plan/shard-share.js';
import { EVERYTHING, type Selection, type ShardScope } from '../select/selection.js';
import { REFUSAL_HOLD_MS, RequestLedger } from '../state/request-ledger.js';
import { collectAbandoned } from './abandoned-jobs.js';
import { type InstanceBooks, newRequestCounters, type RequestCounters, type RunRecord } from './build-manifest.js';
import { journalCacheSource } from './cache-index.js';
import { probeCache } from './cache-probe.js';
import { earlierRow } from './earlier-rows.js';
import { FileHasher } from './fingerprint.js';
import { type InstanceContext, runInstance } from './instance-runner.js';
import type { Journal, JournalState } from './journal.js';
import { LedgerFlusher } from './ledger-flusher.js';
import { ManifestOrder } from './manifest-order.js';
import { claimOutputFolder } from './output-folder.js';
import { OutputLayout } from './output-layout.js';
import { Progress } from './progress.js';
import { forcedInstances } from './redo-story.js';
import { Reachability } from './reachability.js';
import { ResultCache } from './result-cache.js';
import { RowAdmission } from './row-admission.js';
import { type ManifestWritten, RunOutputs } from './run-outputs.js';
import { Scheduler } from './scheduler.js';
import { paidTotal } from './settlement.js';
import { settledOrStalled } from './stall-guard.js';
import type { StopReason } from './run-stop.js';
import { STOP_MESSAGES, unreachableMessage, type Verdict, verdict } from './verdict.js';

/** The books of an instance the journal has never seen (most of a big run stopped early). */
const NO_BOOKS: InstanceBooks = { paidTotal: 0, losses: [] };

/** After an interrupt, how long requests in flight may finish before they are cancelled. */
export const GRACE_MS = 4000;

export interface RunOptions {
  readonly outRoot: string;
  readonly stateDir: string;
  readonly fresh: boolean;
  /** `--fit`: start only the whole rows that fit the quota left and the budget; defer the rest. */
  readonly fit?: boolean | undefined;
  readonly allowUnpriced: boolean;
  readonly maxCredits?: number | undefined;
  readonly quotaUsed?: number | undefined;
  readonly baseUrl: string;
  readonly key: SecretKey;
  readonly sandbox: boolean;
  /** The embedded sandbox's origin and where it listens this time (src/api/origin-route.ts). */
  readonly route?: OriginRoute | undefined;
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
  /** --rows and --redo, resolved (select/selection.ts). @default every row, no redo */
  readonly selection?: Selection | undefined;
}

export interface RunResult {
  readonly exitCode: number;
  readonly plan: Plan;
  /** The run's report, summarised once as its manifest was written; undefined when refused. */
  readonly summary: RunSummary | undefined;
  readonly manifestPath: string | undefined;
  /** This run's manifest kept as runs/<run-id>.json: a later run never rewrites it. */
  readonly keptManifestPath: string | undefined;
  /** Rows the run started: the manifest's first rows (a stopped run lists those it never started after them). */
  readonly rowsStarted: number | undefined;
  /**
   * The manifest as written, read back from the run's kept copy (runs/<run-id>.json) when first
   * asked for: a big run does not hold its manifest in memory to return it.
   */
  readonly manifest: Manifest | undefined;
}

function runResult(
  exitCode: number,
  plan: Plan,
  written?: ManifestWritten & { manifestPath: string; keptPath: string },
): RunResult {
  let manifest: Manifest | undefined;
  return {
    exitCode,
    plan,
    summary: written?.summary,
    manifestPath: written?.manifestPath,
    keptManifestPath: written?.keptPath,
    rowsStarted: written?.rowsStarted,
    get manifest() {
      if (written) manifest ??= JSON.parse(readFileSync(written.keptPath, 'utf8')) as Manifest;
      return manifest;
    },
  };
}

export async function runPipeline(expansion: Expansion, options: RunOptions): Promise<RunResult> {
  const { pipeline } = expansion;
  const { logger } = options;
  const selection = options.selection ?? EVERYTHING;
  // A shard keeps to its own folder: its own journal, lock, manifest and cache.
  const layout = new OutputLayout(options.outRoot, pipeline.name, selection.shard);
  const startedAt = Date.now();
  const runId = `${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}-${randomBytes(2).toString('hex')}`;
  const { lock, journal, state } = await claimOutputFolder(layout, { fresh: options.fresh, now: startedAt });
  try {
    const cache = new ResultCache(journalCacheSource(state), layout);
    const hasher = new FileHasher();
    const includeRow = selection.rowOrder ? selection.includesRow : undefined;
    const probe = probeCache(expansion, cache, hasher, {
      includeRow,
      forced: forcedInstances(selection.redo, state),
    });
    const ledger = new RequestLedger(options.stateDir, options.key.id());
    const plan = await preflight(expansion, {
      allowUnpriced: options.allowUnpriced,
      stateDir: options.stateDir,
      ledgerKeyId: options.key.id(),
      now: options.now?.() ?? startedAt,
      isCached: (instance) => probe.cached.has(instance.key),
      isRedo: (instance) => probe.redone.has(instance.key),
      includeRow,
      warnings: options.warnings,
      fit: options.fit ?? false,
      shard: selection.shard && shardPlan(selection.shard),
      ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
      ...(options.quotaUsed !== undefined && { quotaUsed: options.quotaUsed }),
    });
    for (const warning of plan.warnings) logger.warn(warning);
    const deferred = plan.fit ? plan.fit.deferred.quota + plan.fit.deferred.budget : 0;
    if (plan.fit && deferred > 0)
      logger.warn(
        `--fit: ${plan.fit.rowsTonight} of ${plan.fit.rowsWithWork} rows fit the quota left and the budget; ${deferred} are deferred to a later run`,
      );
    if (plan.refused) {
      for (const reason of plan.reasons) logger.error(`refused: ${reason}`);
      return runResult(EXIT.preflightRefused, plan);
    }
    logger.info(
      {
        credits: plan.credits.total,
        requests: plan.requests.submits + plan.requests.pollsExpected,
        cached: probe.cached.size,
        redo: plan.redo.instances,
      },
      `running ${pipeline.name}${selection.shard ? ` shard ${selection.shard.index}/${selection.shard.count}` : ''}: ${plan.instances} steps, ${plan.credits.total} credits planned, ${probe.cached.size} cached${plan.redo.instances > 0 ? `, ${plan.redo.instances} redone` : ''}`,
    );
    await journal.append({ type: 'run', t: startedAt, run_id: runId });
    return await execute(expansion, options, {
      layout,
      journal,
      state,
      cache,
      hasher,
      ledger,
      plan,
      runId,
      startedAt,
      selection,
    });
  } finally {
    await journal.close();
    await lock.release().catch(() => undefined);
  }
}

interface Prepared {
  readonly layout: OutputLayout;
  readonly journal: Journal;
  readonly state: JournalState;
  readonly cache: ResultCache;
  readonly hasher: FileHasher;
  readonly ledger: RequestLedger;
  readonly plan: Plan;
  readonly runId: string;
  readonly startedAt: number;
  readonly selection: Selection;
}

async function execute(expansion: Expansion, options: RunOptions, prepared: Prepared): Promise<RunResult> {
  const { pipeline } = expansion;
  const { logger } = options;
  const { layout, journal, plan, selection } = prepared;
  const inFlight = new AbortController();
  // Every request in flight (up to the concurrency, plus polls and downloads) listens for the stop.
  setMaxListeners(0, inFlight.signal);
  const counters = newRequestCounters();
  const ledger = new LedgerFlusher(prepared.ledger, logger);
  let quotaRefusedAt: number | undefined;
  let unreachableCause = '';
  const reachability = new Reachability((cause) => {
    unreachableCause = cause;
    scheduler.stop('unreachable');
  });

  const client = new ApiClient({
    baseUrl: options.baseUrl,
    key: options.key,
    api: pipeline.api,
    // Downloads share the pool with API calls (the sandbox serves both): room for both at full concurrency.
    connections: (options.concurrency ?? pipeline.concurrency.total) * 2,
    // The ledger's records carry the run's clock, which the next plan reads them by.
    ...(options.now && { environment: { ...REAL_ENVIRONMENT, now: options.now } }),
    ...(options.videoImageMaxBytes !== undefined && { videoImageMaxBytes: options.videoImageMaxBytes }),
    route: options.route,
    events: clientEvents(counters, ledger, logger, reachability, (event) => {
      // Closed the moment the answer is read: nothing else starts while the step records it.
      scheduler.stop(event.kind);
      if (event.kind !== 'quota') return;
      // On the run's clock, which the next plan reads the ledger with.
      const at = (options.now ?? Date.now)();
      quotaRefusedAt ??= at;
      ledger.add({ at, kind: 'refused', until: at + (event.retryAfterMs ?? REFUSAL_HOLD_MS) });
    }),
  });
  const { redo } = selection;
  const context: InstanceContext = {
    pipelineName: pipeline.name,
    runId: prepared.runId,
    client,
    layout,
    journal,
    state: prepared.state,
    cache: prepared.cache,
    hasher: prepared.hasher,
    retentionMs: RESULT_RETENTION_MS,
    now: options.now ?? Date.now,
    signal: inFlight.signal,
    redo: redo && ((instance) => redo.has(instance.rowIndex, instance.stepIndex)),
  };

  const books = (key: string): InstanceBooks => {
    const history = prepared.state.instances.get(key);
    return history ? { paidTotal: paidTotal(history), losses: history.losses } : NO_BOOKS;
  };
  const record = (verdictOf: Pick<RunRecord, 'status' | 'stoppedBy' | 'exitCode' | 'finishedAt'>): RunRecord => ({
    pipeline: pipeline.name,
    pipelineFile: pipeline.file,
    pipelineVersion: pipeline.version,
    shard: selection.shard && shardPlan(selection.shard),
    runId: prepared.runId,
    startedAt: prepared.startedAt,
    ...verdictOf,
    sandbox: options.sandbox,
    baseUrl: options.baseUrl,
    rows: scheduler.rows,
    outcomes: scheduler.outcomes,
    notStarted: scheduler.stoppedBy ? () => scheduler.notStarted() : undefined,
    requests: counters,
    plan,
    books,
    quotaRefusedAt,
  });
  const running = () => record({ status: 'running', stoppedBy: undefined, exitCode: undefined, finishedAt: undefined });
  const modelOf = (instance: StepInstance) => ('model' in instance.params ? instance.params.model : undefined);
  // The rows --rows and --shard chose (all without them), highest `priority:` first: the order
  // --fit admits them in.
  const rowOrder = takenRows(expansion.rowOrder(), selection.rowOrder ? selection.includesRow : undefined);
  const outputs = new RunOutputs(
    layout,
    prepared.runId,
    expansion.counts.rows,
    selection.rowOrder || expansion.prioritised
      ? {
          // A shard's manifest lists its own rows only: the others are other shards' to list.
          order: new ManifestOrder(expansion.counts.rows, rowOrder, selection.shard?.includes),
          otherRow: (index) => earlierRow(expansion, prepared.state, index, modelOf),
        }
      : undefined,
  );
  const writer = new ThrottledWriter((signal) => outputs.writeRunning(running(), signal));
  const progress = new Progress(options.progress, plan.instances, logger);
  let settled = 0;
  let videosWaiting = 0;

  const scheduler: Scheduler = new Scheduler({
    expansion,
    rowOrder,
    admission: plan.fit
      ? new RowAdmission(plan.fit.needs, {
          requests: requestRoom(plan.quota) ?? Number.POSITIVE_INFINITY,
          credits: plan.budget.maxCredits ?? Number.POSITIVE_INFINITY,
        })
      : undefined,
    concurrency: options.concurrency,
    maxCredits: plan.budget.maxCredits,
    plannedCredits: (instance) => {
      const price = priceInstance(instance, pipeline.pricing);
      return price.priced ? price.credits : 0;
    },
    modelOf,
    runOne: async (task) => {
      const video = task.instance.operation === 'video';
      if (video) videosWaiting++;
      try {
        const stop = await runInstance(task, context);
        const { outcome } = task;
        if (outcome.status === 'failed')
          logger.error(
            { step: outcome.key, code: outcome.error?.code },
            `${outcome.key} failed: ${outcome.error?.message ?? ''}`,
          );
        return stop;
      } finally {
        if (video) videosWaiting--;
      }
    },
    onStop: (reason) => {
      // Said once, whatever number of requests the stop refuses.
      if (reason === 'unreachable') logger.error(unreachableMessage(options.baseUrl, unreachableCause));
      else if (reason !== 'interrupted') logger.error(STOP_MESSAGES[reason]);
      if (reason === 'auth' || reason === 'internal') inFlight.abort(reason);
    },
    onRowSettled: (index, row, outcomes) => {
      const kept = outputs.rowSettled(index, row, outcomes, books);
      // Its line holds its books now: the journal's memory of these steps is not needed this run.
      if (kept === 'release') for (const outcome of outcomes) prepared.state.instances.delete(outcome.key);
      return kept;
    },
    onSettled: (outcome) => {
      // Steps a stop left unstarted: nothing to show or write for them (the manifest makes them at the end).
      if (scheduler.stoppedBy && outcome.status === 'deferred' && outcome.attempts === 0) return;
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

  const stopWatching = watchInterrupt(options.interrupt, logger, scheduler, inFlight, writer);
  const ended = await settledOrStalled(scheduler.run());
  stopWatching();
  progress.stop();
  if (ended.stalled) scheduler.stop('internal');
  // Fewer requests than it takes to stop, but some never connected: their steps wait for a later run.
  if (reachability.cause !== undefined && !scheduler.stoppedBy) {
    unreachableCause = reachability.cause;
    scheduler.stop('unreachable');
  }
  const stoppedBy = scheduler.stoppedBy;

  if (!stoppedBy) {
    await collectAbandoned(scheduler.outcomes, { ...context, logger });
  }
  await ledger.stop();
  await client.close();

  await writer.stop();
  const { verdictOf, counts, written } = await writeFinalManifest(outputs, stoppedBy, options.interrupt, record);
  const { exitCode, status } = verdictOf;
  logger.info({ steps: counts, credits: written.summary.credits.used, requests: counters.sent }, `finished: ${status}`);
  return runResult(exitCode, plan, {
    ...written,
    manifestPath: layout.manifest,
    keptPath: layout.runManifest(prepared.runId),
  });
}

/** A shard as the plan and the manifest name it. */
function shardPlan(shard: ShardScope) {
  return { index: shard.index, count: shard.count, rows: shard.rows };
}

/**
 * The run's verdict, from exact step counts (every row, those never started included), and the
 * manifest that records it: written once, at the end, whatever stopped the run.
 */
async function writeFinalManifest(
  outputs: RunOutputs,
  stoppedBy: StopReason | undefined,
  interrupt: AbortSignal,
  record: (verdictOf: Pick<RunRecord, 'status' | 'stoppedBy' | 'exitCode' | 'finishedAt'>) => RunRecord,
): Promise<{ verdictOf: Verdict; counts: StepCounts; written: ManifestWritten }> {
  try {
    const end = outputs.finish(record({ status: 'running', stoppedBy, exitCode: undefined, finishedAt: undefined }));
    const counts = end.totals.steps;
    const verdictOf = verdict(stoppedBy, counts, interrupt);
    const written = await end.write(record({ ...verdictOf, stoppedBy, finishedAt: Date.now() }));
    return { verdictOf, counts, written };
  } finally {
    await outputs.close();
  }
}

/** The client's events: counted for the manifest, added to the ledger, logged. */
function clientEvents(
  counters: RequestCounters,
  ledger: LedgerFlusher,
  logger: Logger,
  reachability: Reachability,
  onRefused: (event: ServiceRefused) => void,
): ClientEvents {
  return {
    requestSent: (event) => {
      reachability.reached();
      counters.sent++;
      counters[event.kind === 'submit' ? 'submits' : event.kind === 'poll' ? 'polls' : 'other']++;
      ledger.add({ at: event.at, kind: event.kind });
    },
    ambiguous: (event) => {
      counters.ambiguous++;
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
    serviceRefused: onRefused,
    unreachable: (event) => reachability.failed(event.cause),
  };
}

/**
 * SIGINT/SIGTERM: stop starting work at once (nothing waiting for a slot is sent), drop the
 * periodic manifest write, give requests on the wire a grace period, then cancel them. Returns the function that stops watching.
 */
function watchInterrupt(
  interrupt: AbortSignal,
  logger: Logger,
  scheduler: Scheduler,
  inFlight: AbortController,
  writer: ThrottledWriter,
): () => void {
  const onInterrupt = () => {
    logger.warn(
      `${String(interrupt.reason)}: no new steps are started; requests in flight get ${GRACE_MS / 1000} s to finish`,
    );
    scheduler.stop('interrupted');
    // The manifest is written once more at the end: a rewrite in progress would only delay it.
    void writer.cancel();
    setTimeout(() => inFlight.abort('interrupted'), GRACE_MS).unref();
  };
  if (interrupt.aborted) onInterrupt();
  else interrupt.addEventListener('abort', onInterrupt, { once: true });
  return () => interrupt.removeEventListener('abort', onInterrupt);
}
