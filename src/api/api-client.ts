/**
 * The API client: one typed call per operation. Each builds its body from its own request
 * parameters (request-params.ts, onto which the runner maps a step's), sends it (with the
 * Idempotency-Key the runner derived and saved for create calls), retries what may succeed, and
 * parses the answer tolerantly. It holds no concurrency slot while it waits between tries: the
 * caller's `slot` wraps each single attempt.
 */
import { ApiError } from './api-error.js';
import type { ApiSettings } from './api-settings.js';
import type { ClientEvents, RequestKind } from './client-events.js';
import { connectCause } from './connect-errors.js';
import { type Downloaded, downloadResult, type ExpectedMedia } from './download.js';
import { DEFAULT_TIMEOUTS, HttpEngine, type Timeouts } from './http-engine.js';
import { DEFAULT_IMAGE_LIMIT, imagePayload } from './image-payload.js';
import type { OriginRoute } from './origin-route.js';
import { classify } from './outcome-policy.js';
import type * as z from 'zod';
import { countValue, type FieldName, ResponseReader, textValue, urlList, urlValue } from './response-fields.js';
import type {
  EditRequest,
  GenerateRequest,
  RemoveBgRequest,
  TtsRequest,
  UpscaleRequest,
  VideoRequest,
} from './request-params.js';
import { type Backoff, REAL_ENVIRONMENT, type RetryEnvironment, withRetries } from './retry.js';
import type { SecretKey } from './secret-key.js';
import { type HttpAnswer, Transport, retryAfterOf } from './transport.js';

export interface ClientOptions {
  readonly baseUrl: string;
  readonly key: SecretKey;
  readonly api: ApiSettings;
  /** Connections to keep: the run's concurrency. */
  readonly connections: number;
  readonly timeouts?: Timeouts;
  readonly environment?: RetryEnvironment;
  readonly events?: ClientEvents;
  /** Largest start image for video (the others are 10 MB). */
  readonly videoImageMaxBytes?: number;
  /** Connections for one origin opened elsewhere: the embedded sandbox's (origin-route.ts). */
  readonly route?: OriginRoute | undefined;
}

export interface CallOptions {
  readonly idempotencyKey?: string | undefined;
  /** Tries in all (the step's retries + 1). Default 4. */
  readonly attempts?: number | undefined;
  /** Limit of one try. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Runs one try inside the caller's concurrency limit. */
  readonly slot?: (<T>(attempt: () => Promise<T>) => Promise<T>) | undefined;
  /** Told of this call's requests, so the caller can count them against its own work. */
  readonly observer?: CallObserver | undefined;
}

export interface CallObserver {
  /** A request of this call reached the service (or may have). */
  readonly sent?: (kind: RequestKind) => void;
  /** A request of this call got no answer: the service may have done the work. */
  readonly ambiguous?: () => void;
}

export interface Answered {
  readonly requestId: string | undefined;
  readonly creditsUsed: number | undefined;
}

export interface ImagesResult extends Answered {
  readonly urls: readonly string[];
}

export interface FileResult extends Answered {
  readonly url: string;
}

export interface SpeechResult extends FileResult {
  readonly durationSeconds: number | undefined;
}

export interface VideoSubmitted extends Answered {
  readonly requestId: string;
  readonly status: string;
}

export interface VideoState {
  readonly requestId: string;
  /** `running` stands for every status but completed and error. */
  readonly state: 'running' | 'completed' | 'error';
  readonly status: string;
  readonly url: string | undefined;
  readonly creditsUsed: number | undefined;
  readonly message: string | undefined;
}

export const DEFAULT_ATTEMPTS = 4;

/** The call an answer belongs to, for messages about it. */
interface Where {
  readonly method: string;
  readonly path: string;
}

export class ApiClient {
  readonly baseUrl: string;
  readonly api: ApiSettings;
  /** One pool of connections for API calls (through the transport, with the key) and downloads (without). */
  readonly #engine: HttpEngine;
  readonly #transport: Transport;
  readonly #key: SecretKey;
  /** The clock, sleep and random draw every wait goes through (injected in tests). */
  readonly environment: RetryEnvironment;
  readonly #events: ClientEvents;
  readonly #reader: ResponseReader;
  readonly #videoImageMaxBytes: number;
  readonly #madeFolders = new Set<string>();

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.api = options.api;
    this.#key = options.key;
    this.#engine = new HttpEngine(options.connections, options.timeouts ?? DEFAULT_TIMEOUTS, options.route);
    this.#transport = new Transport(this.baseUrl, options.key, this.#engine);
    this.environment = options.environment ?? REAL_ENVIRONMENT;
    this.#events = options.events ?? {};
    this.#reader = new ResponseReader(options.api.responsePaths);
    this.#videoImageMaxBytes = options.videoImageMaxBytes ?? DEFAULT_IMAGE_LIMIT;
  }

  async generate(params: GenerateRequest, call: CallOptions = {}): Promise<ImagesResult> {
    const { prompt, model, num_images, width, height, resolution, quality } = params;
    const body = { prompt, model, num_images, ...defined({ width, height, resolution, quality }) };
    return this.#create('/v1/generate', body, call, (answer, where) => ({
      ...this.#answered(answer),
      urls: this.#images(answer, where),
    }));
  }

  async edit(params: EditRequest, call: CallOptions = {}): Promise<FileResult> {
    const image = await imagePayload(params.image, DEFAULT_IMAGE_LIMIT, 'POST', '/v1/edit');
    const body = {
      prompt: params.prompt,
      image,
      model: params.model,
      ...defined({ resolution: params.resolution, quality: params.quality }),
    };
    return this.#create('/v1/edit', body, call, (answer, where) => ({
      ...this.#answered(answer),
      url: this.#required(answer, 'image_url', urlValue, where),
    }));
  }

  async upscale(params: UpscaleRequest, call: CallOptions = {}): Promise<FileResult> {
    const image = await imagePayload(params.image, DEFAULT_IMAGE_LIMIT, 'POST', '/v1/upscale');
    return this.#create('/v1/upscale', { image, scale: params.scale }, call, (answer, where) => ({
      ...this.#answered(answer),
      url: this.#required(answer, 'image_url', urlValue, where),
    }));
  }

  async removeBg(params: RemoveBgRequest, call: CallOptions = {}): Promise<FileResult> {
    const image = await imagePayload(params.image, DEFAULT_IMAGE_LIMIT, 'POST', '/v1/remove-bg');
    return this.#create('/v1/remove-bg', { image }, call, (answer, where) => ({
      ...this.#answered(answer),
      url: this.#required(answer, 'image_url', urlValue, where),
    }));
  }

  async tts(params: TtsRequest, call: CallOptions = {}): Promise<SpeechResult> {
    const body = { text: params.text, model: params.model, ...defined({ voice_id: params.voice_id }) };
    return this.#create('/v1/tts', body, call, (answer, where) => ({
      ...this.#answered(answer),
      url: this.#required(answer, 'audio_url', urlValue, where),
      durationSeconds: this.#reader.read(answer.json, 'duration_seconds', countValue),
    }));
  }

  async submitVideo(params: VideoRequest, call: CallOptions = {}): Promise<VideoSubmitted> {
    const fields = this.api.video.fieldNames;
    const image = params.image
      ? await imagePayload(params.image, this.#videoImageMaxBytes, 'POST', '/v1/video')
      : undefined;
    const body: Record<string, unknown> = {
      prompt: params.prompt,
      model: params.model,
      mode: params.mode,
      ...defined({ image }),
    };
    if (params.aspect_ratio !== undefined) body[fields.aspect_ratio] = params.aspect_ratio;
    if (params.duration !== undefined) body[fields.duration] = params.duration;
    return this.#create('/v1/video', body, call, (answer, where) => {
      const requestId = this.#required(answer, 'request_id', textValue, where);
      return {
        ...this.#answered(answer),
        requestId,
        status: this.#reader.read(answer.json, 'status', textValue) ?? 'pending',
      };
    });
  }

  /** One status request (with retries for transient failures and throttling). */
  async videoStatus(requestId: string, call: CallOptions = {}): Promise<VideoState> {
    const { statusMethod, statusPath } = this.api.video;
    const path = statusPath.replace('{request_id}', encodeURIComponent(requestId));
    const body = statusMethod === 'POST' ? { request_id: requestId } : undefined;
    return this.#send(statusMethod, path, body, 'poll', call, (answer, where) => {
      const status = this.#required(answer, 'status', textValue, where);
      const state = status === 'completed' ? 'completed' : status === 'error' ? 'error' : 'running';
      return {
        requestId,
        state,
        status,
        url: state === 'completed' ? this.#required(answer, 'video_url', urlValue, where) : undefined,
        creditsUsed: this.#reader.read(answer.json, 'credits_used', countValue),
        message: this.#scrubbed(this.#reader.read(answer.json, 'error_message', textValue)),
      };
    });
  }

  /** Fetch a result URL into `destination` (no key is sent to the file host). */
  download(url: string, destination: string, expected: ExpectedMedia, call: CallOptions = {}): Promise<Downloaded> {
    return downloadResult(url, destination, expected, {
      engine: this.#engine,
      environment: this.environment,
      backoff: this.#backoff(call),
      signal: call.signal,
      madeFolders: this.#madeFolders,
    });
  }

  async close(): Promise<void> {
    await this.#engine.close();
  }

  #backoff(call: CallOptions): Backoff {
    return {
      baseMs: this.api.retry.baseSeconds * 1000,
      capMs: this.api.retry.capSeconds * 1000,
      attempts: call.attempts ?? DEFAULT_ATTEMPTS,
    };
  }

  #create<T>(
    path: string,
    body: unknown,
    call: CallOptions,
    parse: (answer: HttpAnswer, where: Where) => T,
  ): Promise<T> {
    return this.#send('POST', path, body, 'submit', call, parse);
  }

  #send<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    kind: RequestKind,
    call: CallOptions,
    parse: (answer: HttpAnswer, where: Where) => T,
  ): Promise<T> {
    const backoff = this.#backoff(call);
    const slot = call.slot ?? (<R>(attempt: () => Promise<R>) => attempt());
    // Whether any attempt reached the service (answered, or may have been done).
    let reached = false;
    const tries = withRetries(
      async (attempt) => {
        let answer: HttpAnswer;
        try {
          answer = await slot(async () => {
            const got = await this.#transport.send({
              method,
              path,
              body,
              idempotencyKey: call.idempotencyKey,
              signal: call.signal,
              timeoutMs: call.timeoutMs,
              attempt,
              poll: kind === 'poll',
            });
            // Still holding the slot: the caller hears of a refusal before the slot goes to the next request.
            this.#noticeRefusal(got, path, kind === 'poll');
            return got;
          });
        } catch (error) {
          if (error instanceof ApiError && error.ambiguous) {
            reached = true;
            this.#sent(method, path, kind, attempt, undefined, call);
            call.observer?.ambiguous?.();
            this.#events.ambiguous?.({
              method,
              path,
              attempt,
              idempotencyKey: call.idempotencyKey,
              reason: error.serviceCode,
            });
          }
          throw error;
        }
        reached = true;
        this.#sent(method, path, kind, attempt, answer.status, call);
        const success = (answer.json as { success?: unknown } | undefined)?.success;
        if (answer.status >= 200 && answer.status < 300 && success !== false) return parse(answer, { method, path });
        throw this.#failure(method, path, answer, attempt, kind === 'poll');
      },
      {
        backoff,
        environment: this.environment,
        signal: call.signal,
        onRetry: ({ error, attempt, delayMs }) =>
          this.#events.retry?.({
            method,
            path,
            attempt,
            delayMs,
            reason: `${error.status ?? 'no answer'} ${error.serviceCode}`,
          }),
      },
    );
    return tries.catch((error: unknown) => {
      if (!(error instanceof ApiError) || error.connectError === undefined) throw error;
      // connectError says the request never reached the service: not so if an earlier attempt did.
      if (reached) throw new ApiError({ ...error.details(), connectError: undefined });
      this.#events.unreachable?.({ method, path, cause: connectCause(error.connectError) });
      throw error;
    });
  }

  #sent(
    method: string,
    path: string,
    kind: RequestKind,
    attempt: number,
    status: number | undefined,
    call: CallOptions,
  ): void {
    const { idempotencyKey } = call;
    this.#events.requestSent?.({ method, path, kind, attempt, at: this.environment.now(), status, idempotencyKey });
    call.observer?.sent?.(kind);
  }

  #failure(method: string, path: string, answer: HttpAnswer, attempt: number, poll: boolean): ApiError {
    const retryAfterMs = retryAfterOf(answer, this.environment.now());
    const code =
      this.#reader.read(answer.json, 'error_code', textValue) ??
      (answer.status >= 500 ? 'server_error' : `http_${answer.status}`);
    const message =
      this.#scrubbed(this.#reader.read(answer.json, 'error_message', textValue)) ?? 'the answer gave no message';
    const kind = classify({ status: answer.status, poll, retryAfterMs });
    return new ApiError({
      method,
      path,
      status: answer.status,
      code: this.#key.scrub(code),
      message,
      requestId: this.#requestId(answer),
      attempt,
      kind,
      ambiguous: false,
      retryAfterMs,
    });
  }

  /** A 401, 402 or 429-for-the-quota: every other request would meet it too. */
  #noticeRefusal(answer: HttpAnswer, path: string, poll: boolean): void {
    if (answer.status !== 401 && answer.status !== 402 && answer.status !== 429) return;
    const retryAfterMs = retryAfterOf(answer, this.environment.now());
    const kind = classify({ status: answer.status, poll, retryAfterMs });
    if (kind === 'quota' || kind === 'credits' || kind === 'auth')
      this.#events.serviceRefused?.({ kind, at: this.environment.now(), path, retryAfterMs });
  }

  #answered(answer: HttpAnswer): Answered {
    return {
      requestId: this.#requestId(answer),
      creditsUsed: this.#reader.read(answer.json, 'credits_used', countValue),
    };
  }

  #requestId(answer: HttpAnswer): string | undefined {
    return this.#reader.read(answer.json, 'request_id', textValue) ?? answer.header('x-request-id') ?? undefined;
  }

  #images(answer: HttpAnswer, where: Where): readonly string[] {
    return this.#reader.read(answer.json, 'images', urlList) ?? [this.#required(answer, 'image_url', urlValue, where)];
  }

  #required<T>(answer: HttpAnswer, field: FieldName, schema: z.ZodType<T>, where: Where): T {
    const value = this.#reader.read(answer.json, field, schema);
    if (value !== undefined) return value;
    const requestId = this.#requestId(answer);
    // The service did the work (and charged): sending it again would pay twice. Not retried.
    throw new ApiError({
      method: where.method,
      path: where.path,
      status: answer.status,
      code: 'unexpected_response',
      message: `the answer has no ${field}: looked for ${this.#reader.lookedFor(field)}${requestId ? '' : ' (and it has no request_id)'}`,
      requestId,
      attempt: 0,
      kind: 'permanent',
      ambiguous: false,
    });
  }

  #scrubbed(text: string | undefined): string | undefined {
    return text === undefined ? undefined : this.#key.scrub(text);
  }
}

/** The entries whose value is set: optional parameters are left out, not sent as null. */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
