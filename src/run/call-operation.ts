/**
 * The API call of each operation, picked from a table: what the runner sends for a step and the
 * answer it keeps (result URLs, request_id, credits). A step's parameters are mapped onto the
 * client's request types here (its image, by now a URL, a data URI or a file). Video is a job:
 * submitted, its request_id saved before polling, polled to the end (or resumed from a job an
 * earlier run submitted).
 */
import type { ApiClient, CallOptions } from '../api/api-client.js';
import type { ImageSource, VideoRequest } from '../api/request-params.js';
import { runVideoJob } from '../api/video-job.js';
import type { Operation } from '../catalog/operations.js';
import type { ImageInput } from '../pipeline/params/image-input.js';
import type { OperationCall, VideoParams } from '../pipeline/params/operation-params.js';
import type { InstanceOutcome } from './run-outcome.js';

export interface Answer {
  readonly urls: readonly string[];
  readonly requestId: string | undefined;
  readonly creditsUsed: number | undefined;
}

export interface CallContext {
  readonly client: ApiClient;
  readonly options: CallOptions;
  /** Video jobs submitted under this key by an earlier run, oldest first (polled, not resubmitted). */
  readonly resume: readonly string[];
  /** Where the video's jobs and polls are counted while it runs (the manifest names a job in progress). */
  readonly outcome: InstanceOutcome;
  /** A video job's request_id, saved before it is polled. */
  readonly onSubmitted: (requestId: string, idempotencyKey: string | undefined) => Promise<void>;
}

type Caller<O extends Operation> = (
  params: Extract<OperationCall, { operation: O }>['params'],
  context: CallContext,
) => Promise<Answer>;

const CALLS: { readonly [O in Operation]: Caller<O> } = {
  generate: async (params, { client, options }) => {
    const result = await client.generate(params, options);
    return { urls: result.urls, requestId: result.requestId, creditsUsed: result.creditsUsed };
  },
  edit: async (params, { client, options }) => single(await client.edit(withSendable(params), options)),
  upscale: async (params, { client, options }) => single(await client.upscale(withSendable(params), options)),
  'remove-bg': async (params, { client, options }) => single(await client.removeBg(withSendable(params), options)),
  tts: async (params, { client, options }) => single(await client.tts(params, options)),
  video: async (params, { client, options, resume, outcome, onSubmitted }) => {
    outcome.requestIds = [...resume];
    outcome.requestId = resume.at(-1);
    const done = await runVideoJob(client, videoRequest(params), {
      ...options,
      resume,
      onSubmitted: async (requestId, submittedKey) => {
        outcome.requestIds.push(requestId);
        outcome.requestId = requestId;
        await onSubmitted(requestId, submittedKey);
      },
      onPolled: () => {
        outcome.polls++;
      },
    });
    outcome.requestIds = [...done.requestIds];
    return { urls: [done.url], requestId: done.requestId, creditsUsed: done.creditsUsed };
  },
};

export function callOperation(call: OperationCall, context: CallContext): Promise<Answer> {
  const caller = CALLS[call.operation] as Caller<typeof call.operation>;
  return caller(call.params as never, context);
}

function single(result: { url: string; requestId: string | undefined; creditsUsed: number | undefined }): Answer {
  return { urls: [result.url], requestId: result.requestId, creditsUsed: result.creditsUsed };
}

/** The image as the client sends it: an earlier step's output was resolved (resolve-inputs.ts) by now. */
function sendable(image: ImageInput): ImageSource {
  if (image.kind === 'output') throw new Error(`internal: steps.${image.step} output reached the client unresolved`);
  return image;
}

function withSendable<P extends { readonly image: ImageInput }>(params: P): Omit<P, 'image'> & { image: ImageSource } {
  return { ...params, image: sendable(params.image) };
}

function videoRequest({ image, ...rest }: VideoParams): VideoRequest {
  return image ? { ...rest, image: sendable(image) } : rest;
}
