/**
 * One step instance, made safe to interrupt at any point. In order, each recorded before the next
 * side effect: the intent with its idempotency key (before any request), a video's request_id
 * (before polling), the answer (before downloading), the files. A rerun finds where it stopped:
 * a finished result is reused (cached), a request in doubt is sent again under the same key, a
 * submitted video is polled again by its request_id, an answer not yet downloaded is downloaded.
 */
import type { ApiClient, CallOptions } from '../api/api-client.js';
import { ApiError } from '../api/api-error.js';
import { type ExpectedMedia, ResultExpiredError } from '../api/download.js';
import { runVideoJob, VideoJobError } from '../api/video-job.js';
import { OPERATION_SPECS } from '../catalog/operations.js';
import { mediaInfo } from '../media/media-info.js';
import type { CheckedStep } from '../pipeline/checked-pipeline.js';
import type { StepInstance } from '../pipeline/expansion.js';
import type { OperationCall } from '../pipeline/params/operation-params.js';
import { type FileHasher, fingerprint, idempotencyKey } from './fingerprint.js';
import type { InstanceHistory, JournalFile } from './journal-records.js';
import type { Journal, JournalState } from './journal.js';
import { extensionOf, type OutputLayout } from './output-layout.js';
import { resolveInputs } from './resolve-inputs.js';
import type { ResultCache } from './result-cache.js';
import type { DeferReason, InstanceOutcome } from './run-outcome.js';
import { rename } from 'node:fs/promises';

export interface InstanceContext {
  readonly pipelineName: string;
  readonly client: ApiClient;
  readonly layout: OutputLayout;
  readonly journal: Journal;
  readonly state: JournalState;
  readonly cache: ResultCache;
  readonly hasher: FileHasher;
  readonly retentionMs: number;
  readonly now: () => number;
  readonly signal: AbortSignal;
  /** The concurrency slot for one request of this operation. */
  readonly slot: CallOptions['slot'];
  /** Told the idempotency key before it is used, so requests can be counted against the instance. */
  readonly bind?: (idempotencyKey: string) => void;
}

/** What stops the whole run, if this instance met it. */
export type StopSignal = 'credits' | 'quota' | 'auth' | undefined;

interface Answer {
  readonly urls: readonly string[];
  readonly requestId: string | undefined;
  readonly creditsUsed: number | undefined;
}

export async function runInstance(
  instance: StepInstance,
  step: CheckedStep,
  rowFolder: string,
  outcome: InstanceOutcome,
  upstream: (stepId: string) => InstanceOutcome | undefined,
  context: InstanceContext,
): Promise<StopSignal> {
  outcome.startedAt = context.now();
  try {
    await attempt(instance, step, rowFolder, outcome, upstream, context, false);
    return undefined;
  } catch (error) {
    return await settleFailure(error, instance, outcome, context);
  } finally {
    outcome.finishedAt = context.now();
  }
}

async function attempt(
  instance: StepInstance,
  step: CheckedStep,
  rowFolder: string,
  outcome: InstanceOutcome,
  upstream: (stepId: string) => InstanceOutcome | undefined,
  context: InstanceContext,
  afterExpiry: boolean,
): Promise<void> {
  const { journal, layout } = context;
  const { call, identities } = await resolveInputs(
    instance as OperationCall,
    upstream,
    layout,
    context.hasher,
    context.now(),
  );
  const print = fingerprint(call, identities);

  const cached = afterExpiry ? undefined : await context.cache.find(instance.key, print);
  if (cached) {
    const files = await context.cache.place(cached, rowFolder, instance.stepId);
    if (
      context.state.instances.get(instance.key)?.downloaded !== cached ||
      files.some((file, i) => file.path !== cached.files[i]?.path)
    ) {
      await journal.append({ type: 'downloaded', t: context.now(), key: instance.key, fingerprint: print, files });
    }
    outcome.status = 'cached';
    outcome.files = files;
    return;
  }

  const history = context.state.instances.get(instance.key);
  const sameWork = history?.fingerprint === print;
  const unfinished = sameWork && !afterExpiry && !history?.failed && !history?.downloaded;
  const generation = sameWork ? (unfinished ? (history?.generation ?? 0) : (history?.generation ?? 0) + 1) : 0;
  const key = idempotencyKey(context.pipelineName, instance.key, print, generation);
  context.bind?.(key);
  if (!(unfinished && history?.idempotencyKey === key)) {
    await journal.append({
      type: 'intent',
      t: context.now(),
      key: instance.key,
      fingerprint: print,
      generation,
      idempotency_key: key,
      operation: outcome.operation,
      model: outcome.model ?? null,
      credits_planned: outcome.creditsPlanned,
    });
    remember(context.state, instance.key, { fingerprint: print, generation, idempotencyKey: key });
  }

  const previous = unfinished ? history?.answer : undefined;
  const answer: Answer = previous
    ? { urls: previous.urls, requestId: previous.request_id, creditsUsed: previous.credits_used }
    : await send(call, step, key, unfinished ? (history?.requestIds ?? []) : [], outcome, instance.key, context);
  outcome.requestId = answer.requestId;
  outcome.creditsUsed = answer.creditsUsed ?? outcome.creditsPlanned;
  if (!previous) {
    const answered = {
      type: 'answered',
      t: context.now(),
      key: instance.key,
      request_id: answer.requestId,
      urls: answer.urls,
      credits_used: answer.creditsUsed,
    } as const;
    await journal.append(answered);
    remember(context.state, instance.key, { answer: answered });
    outcome.urlExpiresAt = answered.t + context.retentionMs;
  } else {
    outcome.urlExpiresAt = previous.t + context.retentionMs;
  }

  let files: JournalFile[];
  try {
    files = await download(answer, instance, rowFolder, context);
  } catch (error) {
    // An answer from an earlier run whose URLs have expired: the work has to be done again.
    if (error instanceof ResultExpiredError && previous && !afterExpiry) {
      const failed = {
        type: 'failed',
        t: context.now(),
        key: instance.key,
        kind: 'expired',
        status: error.status,
        code: 'result_expired',
        message: error.message,
        request_id: answer.requestId,
      } as const;
      await journal.append(failed);
      remember(context.state, instance.key, { failed });
      return attempt(instance, step, rowFolder, outcome, upstream, context, true);
    }
    throw error;
  }
  const downloaded = { type: 'downloaded', t: context.now(), key: instance.key, fingerprint: print, files } as const;
  // Not awaited to disk: if this record is lost, the next run downloads the recorded answer again
  // (nothing is sent or paid); it goes to disk with the next group of records.
  void journal.append(downloaded, false);
  remember(context.state, instance.key, { downloaded });
  context.cache.remember(downloaded);
  outcome.status = 'done';
  outcome.files = files;
}

async function send(
  call: OperationCall,
  step: CheckedStep,
  key: string,
  resume: readonly string[],
  outcome: InstanceOutcome,
  instanceKey: string,
  context: InstanceContext,
): Promise<Answer> {
  const options: CallOptions = {
    idempotencyKey: key,
    attempts: step.retries + 1,
    timeoutMs: step.timeoutMs,
    signal: context.signal,
    slot: context.slot,
  };
  const { client } = context;
  switch (call.operation) {
    case 'generate': {
      const result = await client.generate(call.params, options);
      return { urls: result.urls, requestId: result.requestId, creditsUsed: result.creditsUsed };
    }
    case 'video': {
      // Known from the start (a resumed job) or from the submit: the manifest of a run stopped
      // while the job works names it.
      outcome.requestIds = [...resume];
      outcome.requestId = resume.at(-1);
      const done = await runVideoJob(client, call.params, {
        ...options,
        resume,
        onSubmitted: async (requestId, submittedKey) => {
          outcome.requestIds.push(requestId);
          outcome.requestId = requestId;
          await context.journal.append({
            type: 'submitted',
            t: context.now(),
            key: instanceKey,
            request_id: requestId,
            idempotency_key: submittedKey,
          });
          remember(context.state, instanceKey, { submitted: requestId });
        },
        onPolled: () => {
          outcome.polls++;
        },
      });
      outcome.requestIds = [...done.requestIds];
      return { urls: [done.url], requestId: done.requestId, creditsUsed: done.creditsUsed };
    }
    default: {
      const result =
        call.operation === 'edit'
          ? await client.edit(call.params, options)
          : call.operation === 'upscale'
            ? await client.upscale(call.params, options)
            : call.operation === 'remove-bg'
              ? await client.removeBg(call.params, options)
              : await client.tts(call.params, options);
      return { urls: [result.url], requestId: result.requestId, creditsUsed: result.creditsUsed };
    }
  }
}

async function download(
  answer: Answer,
  instance: StepInstance,
  rowFolder: string,
  context: InstanceContext,
): Promise<JournalFile[]> {
  const media = OPERATION_SPECS[instance.operation].output;
  const expected: ExpectedMedia = media;
  const fallback = media === 'image' ? 'image/png' : media === 'audio' ? 'audio/mpeg' : 'video/mp4';
  const files: JournalFile[] = [];
  for (const [index, url] of answer.urls.entries()) {
    const base = context.layout.assetBase(rowFolder, instance.stepId, index);
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
    });
  }
  return files;
}

async function settleFailure(
  error: unknown,
  instance: StepInstance,
  outcome: InstanceOutcome,
  context: InstanceContext,
): Promise<StopSignal> {
  if (context.signal.aborted) {
    // Not a failure of the step: the run is stopping. The journal keeps where it was.
    outcome.status = 'deferred';
    outcome.reason = 'interrupted';
    return undefined;
  }
  const info =
    error instanceof ApiError
      ? {
          kind: error.kind,
          status: error.status,
          code: error.code,
          message: error.serviceMessage,
          requestId: error.requestId,
        }
      : error instanceof VideoJobError
        ? {
            kind: 'permanent',
            status: undefined,
            code: error.reason === 'timeout' ? 'video_timeout' : 'video_error',
            message: error.message,
            requestId: error.requestId,
          }
        : error instanceof ResultExpiredError
          ? {
              kind: 'permanent',
              status: error.status,
              code: 'result_expired',
              message: error.message,
              requestId: outcome.requestId,
            }
          : {
              kind: 'internal',
              status: undefined,
              code: 'internal_error',
              message: error instanceof Error ? error.message : String(error),
              requestId: undefined,
            };
  if (error instanceof VideoJobError) outcome.requestIds = [...error.requestIds];
  const failed = {
    type: 'failed',
    t: context.now(),
    key: instance.key,
    kind: info.kind,
    status: info.status,
    code: info.code,
    message: info.message,
    request_id: info.requestId,
  } as const;
  await context.journal.append(failed);
  remember(context.state, instance.key, { failed });
  outcome.error = info;
  const stop: Record<string, DeferReason> = { credits: 'credits', quota: 'quota', auth: 'auth' };
  const reason = stop[info.kind];
  if (reason) {
    outcome.status = 'deferred';
    outcome.reason = reason;
    return reason as StopSignal;
  }
  outcome.status = 'failed';
  return undefined;
}

/** Keep the in-memory history in step with the journal, so later instances of this run see it. */
function remember(
  state: JournalState,
  key: string,
  change: {
    fingerprint?: string;
    generation?: number;
    idempotencyKey?: string;
    answer?: InstanceHistory['answer'];
    downloaded?: InstanceHistory['downloaded'];
    submitted?: string;
    failed?: InstanceHistory['failed'];
  },
): void {
  let history = state.instances.get(key);
  if (!history) {
    history = { generation: 0, requestIds: [], ambiguous: 0 };
    state.instances.set(key, history);
  }
  if (change.fingerprint !== undefined) {
    history.fingerprint = change.fingerprint;
    history.generation = change.generation ?? 0;
    if (change.idempotencyKey !== undefined) history.idempotencyKey = change.idempotencyKey;
    delete history.answer;
    delete history.failed;
    delete history.downloaded;
    history.requestIds = [];
  }
  if (change.answer) history.answer = change.answer;
  if (change.downloaded) history.downloaded = change.downloaded;
  if (change.submitted) history.requestIds.push(change.submitted);
  if (change.failed)
    history.failed = {
      type: 'failed',
      t: 0,
      key,
      kind: '',
      status: undefined,
      code: '',
      message: '',
      request_id: undefined,
    };
}
