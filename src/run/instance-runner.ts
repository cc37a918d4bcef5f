/**
 * One step instance, made safe to interrupt at any point. In order, each recorded before the next
 * side effect: the intent with its idempotency key (before any request), a video's request_id
 * (before polling), the answer (before downloading), the files. A rerun finds where it stopped:
 * a finished result is reused (cached), an answer already paid for is downloaded (or, when its
 * URLs have expired, booked as lost and the work done again), work whose key is not settled is
 * sent again under that same key (the service replays what it did), a submitted video is polled
 * again by its request_id. Only a settled key (an answer, a definite refusal) moves to a new one.
 * A redo (--redo) skips the cache, keeps the earlier result out of the way and starts a new story
 * under a new key (redo-story.ts), unless an unfinished one must be resolved first.
 */
import type { ApiClient } from '../api/api-client.js';
import { type ExpectedMedia, ResultExpiredError } from '../api/download.js';
import { OPERATION_SPECS } from '../catalog/operations.js';
import { mediaInfo } from '../media/media-info.js';
import type { CheckedStep } from '../pipeline/checked-pipeline.js';
import type { StepInstance } from '../pipeline/expansion.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type Answer, callOperation } from './call-operation.js';
import { type FileHasher, fingerprint, idempotencyKey } from './fingerprint.js';
import type { InstanceHistory, JournalFile, JournalRecord } from './journal-records.js';
import { applyRecord, type Journal, JournalWriteError, type JournalState } from './journal.js';
import { keepEarlier } from './keep-earlier.js';
import { extensionOf, type OutputLayout } from './output-layout.js';
import { redoStep } from './redo-story.js';
import { resolveInputs } from './resolve-inputs.js';
import type { ResultCache } from './result-cache.js';
import type { DeferReason, InstanceOutcome } from './run-outcome.js';
import { RunStopping } from './run-stop.js';
import { failureOf, type StopSignal } from './step-failure.js';
import { creditsOfAnswer } from './settlement.js';
import { rename } from 'node:fs/promises';

export type Slot = <T>(request: () => Promise<T>) => Promise<T>;

/** Everything about one instance of one row that its run needs. */
export interface InstanceTask {
  readonly instance: StepInstance;
  readonly step: CheckedStep;
  readonly rowFolder: string;
  readonly outcome: InstanceOutcome;
  readonly upstream: (stepId: string) => InstanceOutcome | undefined;
  /** The concurrency slot for one request of this operation. */
  readonly slot: Slot;
}

/** What every instance of a run shares. */
export interface InstanceContext {
  readonly pipelineName: string;
  /** This run's id: on every file it saves, and in the keys of the redos it starts. */
  readonly runId: string;
  readonly client: ApiClient;
  readonly layout: OutputLayout;
  readonly journal: Journal;
  readonly state: JournalState;
  readonly cache: ResultCache;
  readonly hasher: FileHasher;
  readonly retentionMs: number;
  readonly now: () => number;
  readonly signal: AbortSignal;
  /** --redo: whether to pay again for this instance's result, though it is cached. */
  readonly redo?: ((instance: StepInstance) => boolean) | undefined;
}

export async function runInstance(task: InstanceTask, context: InstanceContext): Promise<StopSignal> {
  const { outcome } = task;
  outcome.startedAt = context.now();
  try {
    await attempt(task, context);
    return undefined;
  } catch (error) {
    return await settleFailure(error, task, context);
  } finally {
    outcome.finishedAt = context.now();
  }
}

async function attempt(task: InstanceTask, context: InstanceContext): Promise<void> {
  const { instance, outcome } = task;
  const { call, identities } = await resolveInputs(
    instance as OperationCall,
    task.upstream,
    context.layout,
    context.hasher,
    context.now(),
  );
  const workFingerprint = fingerprint(call, identities);
  const redo = redoStep(context.state.instances.get(instance.key), workFingerprint, context.redo?.(instance) ?? false);

  if (redo === 'none') {
    const cached = context.cache.find(instance.key, workFingerprint);
    if (cached) {
      const files = await context.cache.place(cached, task.rowFolder, instance.stepId);
      if (
        context.state.instances.get(instance.key)?.downloaded !== cached ||
        files.some((file, i) => file.path !== cached.files[i]?.path)
      ) {
        await record(context, {
          type: 'downloaded',
          t: context.now(),
          key: instance.key,
          fingerprint: workFingerprint,
          files,
        });
      }
      outcome.status = 'cached';
      outcome.files = files;
      return;
    }
  }

  if (redo === 'start') {
    // Out of the way before the intent: the new result takes its place, the earlier one is kept.
    outcome.replaced = await keepEarlier(context, instance.key);
  } else {
    // An answer already paid for (an earlier run, or a result deleted since): download it, free.
    const earlier = context.state.instances.get(instance.key);
    if (earlier?.fingerprint === workFingerprint && earlier.answer) {
      const answer = earlier.answer;
      outcome.requestId = answer.request_id;
      outcome.requestIds = [...earlier.requestIds];
      outcome.urlExpiresAt = answer.t + context.retentionMs;
      try {
        return await save(task, context, workFingerprint, {
          urls: answer.urls,
          requestId: answer.request_id,
          creditsUsed: answer.credits_used,
        });
      } catch (error) {
        if (!(error instanceof ResultExpiredError)) throw error;
        // Never saved: the credits are lost. Saved once and deleted since: only the files are.
        if (!earlier.downloaded) await bookLoss(context, instance.key, earlier, answer.request_id);
      }
    }
  }

  const history = context.state.instances.get(instance.key);
  const sameWork = history?.fingerprint === workFingerprint;
  // Work in doubt keeps its key until an answer or a definite refusal settles it.
  const inDoubt = redo !== 'start' && sameWork && history !== undefined && !history.settled;
  const generation = !sameWork ? 0 : inDoubt ? history.generation : history.generation + 1;
  const key =
    inDoubt && history.idempotencyKey !== undefined
      ? history.idempotencyKey
      : idempotencyKey(
          context.pipelineName,
          instance.key,
          workFingerprint,
          generation,
          // A redo's new key is the run's own: no earlier story (nor --fresh) can have used it.
          redo === 'none' ? undefined : context.runId,
        );
  if (!(inDoubt && history.idempotencyKey === key)) {
    await record(context, {
      type: 'intent',
      t: context.now(),
      key: instance.key,
      fingerprint: workFingerprint,
      generation,
      idempotency_key: key,
      ...(redo !== 'none' && { redo: true }),
      operation: outcome.operation,
      model: outcome.model ?? null,
      credits_planned: outcome.creditsPlanned,
    });
  }

  const answer = await callOperation(call, {
    client: context.client,
    options: {
      idempotencyKey: key,
      attempts: task.step.retries + 1,
      timeoutMs: task.step.timeoutMs,
      signal: context.signal,
      slot: task.slot,
      observer: {
        sent: (kind) => {
          if (kind === 'submit') outcome.attempts++;
        },
        ambiguous: () => {
          outcome.ambiguous++;
        },
      },
    },
    resume: inDoubt ? history.requestIds : [],
    outcome,
    onSubmitted: (requestId, submittedKey) =>
      record(context, {
        type: 'submitted',
        t: context.now(),
        key: instance.key,
        request_id: requestId,
        idempotency_key: submittedKey,
      }),
  });
  const answered = {
    type: 'answered',
    t: context.now(),
    key: instance.key,
    request_id: answer.requestId,
    urls: answer.urls,
    credits_used: answer.creditsUsed,
  } as const;
  await record(context, answered);
  outcome.requestId = answer.requestId;
  outcome.urlExpiresAt = answered.t + context.retentionMs;
  outcome.creditsUsed += creditsOfAnswer(answered, context.state.instances.get(instance.key) ?? {});
  try {
    await save(task, context, workFingerprint, answer);
  } catch (error) {
    // Expired before its first download: paid, and never to be saved. The next run does it again.
    if (error instanceof ResultExpiredError)
      await bookLoss(context, instance.key, context.state.instances.get(instance.key), answer.requestId);
    throw error;
  }
}

/** Download an answer's files into place and record them: the step is done. */
async function save(
  task: InstanceTask,
  context: InstanceContext,
  workFingerprint: string,
  answer: Answer,
): Promise<void> {
  const { instance, outcome } = task;
  const files = await download(answer, task, context);
  const downloaded = {
    type: 'downloaded',
    t: context.now(),
    key: instance.key,
    fingerprint: workFingerprint,
    files,
  } as const;
  // Not awaited to disk: if this record is lost, the next run downloads the recorded answer again
  // (nothing is sent or paid); it goes to disk with the next group of records.
  context.journal.append(downloaded, false).catch(() => undefined);
  applyRecord(context.state, downloaded);
  outcome.status = 'done';
  outcome.files = files;
}

/** The current answer was paid for and will never be saved: book its credits as lost. */
async function bookLoss(
  context: InstanceContext,
  key: string,
  history: InstanceHistory | undefined,
  requestId: string | undefined,
): Promise<void> {
  const answer = history?.answer;
  if (!history || !answer) return;
  await record(context, {
    type: 'lost',
    t: context.now(),
    key,
    credits: creditsOfAnswer(answer, history),
    reason: 'the result URL expired before it was downloaded',
    request_id: requestId,
    answer: true,
  });
}

/** Journal a record (on disk before the next side effect) and keep the run's state in step. */
async function record(context: InstanceContext, entry: Exclude<JournalRecord, { type: 'run' }>): Promise<void> {
  await context.journal.append(entry);
  applyRecord(context.state, entry);
}

async function download(answer: Answer, task: InstanceTask, context: InstanceContext): Promise<JournalFile[]> {
  const { instance } = task;
  const media = OPERATION_SPECS[instance.operation].output;
  const expected: ExpectedMedia = media;
  const fallback = media === 'image' ? 'image/png' : media === 'audio' ? 'audio/mpeg' : 'video/mp4';
  const files: JournalFile[] = [];
  for (const [index, url] of answer.urls.entries()) {
    const base = context.layout.assetBase(task.rowFolder, instance.stepId, index);
    const got = await context.client.download(url, `${base}.${extensionOf(fallback)}`, expected, {
      signal: context.signal,
    });
    let file = got.path;
    // A JPEG answered for a step gets a .jpg name: the extension follows the bytes.
    const wanted = `${base}.${extensionOf(got.mediaType)}`;
    if (wanted !== file) {
      await rename(file, wanted);
      file = wanted;
    }
    const info = await mediaInfo(file, got.mediaType, got.head);
    files.push({
      path: context.layout.relative(file),
      index,
      sha256: got.sha256,
      bytes: got.bytes,
      media_type: got.mediaType,
      url,
      ...(info.width !== undefined && { width: info.width, height: info.height }),
      ...(info.durationSeconds !== undefined && { duration_seconds: info.durationSeconds }),
      run_id: context.runId,
    });
  }
  return files;
}

async function settleFailure(error: unknown, task: InstanceTask, context: InstanceContext): Promise<StopSignal> {
  const { outcome } = task;
  // Never sent, or cancelled on the wire: the run is stopping. The journal keeps where the step was.
  if (error instanceof RunStopping) return defer(outcome, error.reason);
  if (context.signal.aborted) {
    const reason: unknown = context.signal.reason;
    return defer(outcome, reason === 'auth' || reason === 'internal' ? reason : 'interrupted');
  }
  const failure = failureOf(error, outcome);
  outcome.error = failure.info;
  if (failure.requestIds) outcome.requestIds = [...failure.requestIds];
  // Nothing reached the service: nothing to journal, and the next run sends it as if new.
  if (failure.unreached) return defer(outcome, 'unreachable');
  try {
    await record(context, {
      type: 'failed',
      t: context.now(),
      key: task.instance.key,
      kind: failure.info.kind,
      status: failure.info.status,
      code: failure.info.code,
      message: failure.info.message,
      request_id: failure.info.requestId,
    });
  } catch (journalError) {
    // Once a write failed the journal refuses every append with that error: a failure that is
    // itself a JournalWriteError ends here too, and the run stops.
    if (!(journalError instanceof JournalWriteError)) throw journalError;
    return defer(outcome, 'storage', 'storage');
  }
  if (failure.stop) return defer(outcome, failure.stop, failure.stop);
  outcome.status = 'failed';
  return undefined;
}

function defer(outcome: InstanceOutcome, reason: DeferReason, stop?: StopSignal): StopSignal {
  outcome.status = 'deferred';
  outcome.reason = reason;
  return stop;
}
