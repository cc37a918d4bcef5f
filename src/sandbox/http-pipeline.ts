/**
 * One request through the sandbox, in the order the service would take it: route, authenticate
 * (401), count against the quota (429 with Retry-After), apply the fault plan, replay a stored
 * idempotent answer, validate (400), check the balance (402), do the work and charge, answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { adminRoute } from './admin.js';
import { editEndpoint } from './endpoints/edit.js';
import type { CreateEndpoint, EndpointContext } from './endpoints/endpoint.js';
import { generateEndpoint } from './endpoints/generate.js';
import { removeBgEndpoint } from './endpoints/remove-bg.js';
import { ttsEndpoint } from './endpoints/tts.js';
import { upscaleEndpoint } from './endpoints/upscale.js';
import { videoEndpoint } from './endpoints/video.js';
import { videoStatus } from './endpoints/video-status.js';
import type { FaultPlan, RequestKind } from './faults.js';
import { serveFile } from './files-route.js';
import { errorBody, sendJson } from './respond.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxState } from './sandbox-state.js';
import { settleJobs } from './settle-jobs.js';

/** JSON bodies up to this size: a 10 MB image as base64 is about 13.4 MB. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

const SERVER_ERRORS: Readonly<Record<number, string>> = {
  500: 'internal error',
  502: 'bad gateway',
  503: 'service unavailable',
};

function createEndpoints(sandbox: SandboxState): ReadonlyMap<string, CreateEndpoint> {
  const list = [
    generateEndpoint,
    editEndpoint,
    videoEndpoint(sandbox.video),
    ttsEndpoint,
    upscaleEndpoint,
    removeBgEndpoint,
  ];
  return new Map(list.map((endpoint) => [endpoint.path, endpoint]));
}

const endpointsBySandbox = new WeakMap<SandboxState, ReadonlyMap<string, CreateEndpoint>>();

export async function handleRequest(
  sandbox: SandboxState,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
  if (path.startsWith('/__sandbox/')) return adminRoute(sandbox, request, response, path);
  if (path.startsWith('/files/')) return serveFile(sandbox, request, response, path);

  const requestId = sandbox.newId('req');
  let endpoints = endpointsBySandbox.get(sandbox);
  if (!endpoints) {
    endpoints = createEndpoints(sandbox);
    endpointsBySandbox.set(sandbox, endpoints);
  }
  const endpoint = endpoints.get(path);
  const isStatus = path === '/v1/video/status' || /^\/v1\/video\/[\w-]+$/.test(path);
  const fail = (error: SandboxError) =>
    sendJson(response, error.status, errorBody(error.serviceCode, error.message, requestId), retryHeaders(error));
  if (!endpoint && !isStatus) {
    await drain(request);
    return fail(new SandboxError('not_found', `no endpoint ${request.method} ${path}`));
  }
  const expectedMethod = endpoint || path === '/v1/video/status' ? 'POST' : 'GET';
  if (request.method !== expectedMethod) {
    await drain(request);
    return fail(new SandboxError('method_not_allowed', `${path} takes ${expectedMethod}`));
  }

  const account = sandbox.accounts.find(bearerKey(request.headers.authorization) ?? '');
  sandbox.stats.request(isStatus && path !== '/v1/video/status' ? '/v1/video/{request_id}' : path, account?.name);
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    sandbox.stats.answered(status);
    sendJson(response, status, body, headers);
  };
  const answerError = (error: SandboxError) =>
    answer(error.status, errorBody(error.serviceCode, error.message, requestId), retryHeaders(error));

  try {
    if (!account || account.revoked) {
      await drain(request);
      throw new SandboxError('invalid_api_key', 'missing, malformed or revoked API key');
    }
    const kind: RequestKind = endpoint ? 'create' : 'poll';
    const plan = sandbox.faults.plan(kind, path, header(request, 'x-sandbox-fault'));
    const now = sandbox.now();
    if (!account.tryCount(now)) {
      await drain(request);
      throw new SandboxError(
        'rate_limit_exceeded',
        `daily request quota of ${account.limit} spent`,
        account.secondsUntilFree(now),
      );
    }
    sandbox.recorder?.counted(account.name, now);
    settleJobs(sandbox);
    if (await applyTransportFaults(sandbox, plan, request, response, answer, requestId)) return;
    const body = await readJson(request);

    if (!endpoint) return answer(200, videoStatus(sandbox, account.name, path, body, plan));

    const idempotencyKey = header(request, 'idempotency-key');
    const stored = idempotencyKey
      ? (sandbox.idempotency.find(account.name, idempotencyKey, now) ??
        (await sandbox.idempotency.pending(account.name, idempotencyKey)))
      : undefined;
    if (stored) {
      sandbox.stats.idempotentReplays++;
      // A replay can be lost on the way back too: scripted tests break it like any answer.
      if (plan.resetAfter) {
        sandbox.stats.fault('reset_after');
        request.socket.destroy();
        return;
      }
      return answer(stored.status, stored.body, { 'idempotent-replayed': 'true' });
    }
    const remember = idempotencyKey ? sandbox.idempotency.begin(account.name, idempotencyKey) : undefined;
    const context: EndpointContext = { state: sandbox, faults: plan, accountName: account.name, idempotencyKey };
    const unit = sandbox.recorder?.unit();
    let status = 200;
    let result: unknown = errorBody('internal_error', 'the sandbox failed on this request', requestId);
    let charged = 0;
    let failure: unknown;
    try {
      const prepared = await endpoint.prepare(body, context);
      if (prepared.credits > account.credits) {
        throw new SandboxError(
          'insufficient_credits',
          `needs ${prepared.credits} credits, the balance is ${account.credits}`,
        );
      }
      const fields = unit ? unit.collect(() => prepared.perform(requestId)) : prepared.perform(requestId);
      if (prepared.chargeNow && prepared.credits > 0) {
        charged = prepared.credits;
        account.credits -= charged;
        sandbox.stats.charge({ account: account.name, credits: charged, idempotencyKey });
      }
      result = { success: true, ...fields, request_id: requestId };
    } catch (error) {
      status = error instanceof SandboxError ? error.status : 500;
      if (error instanceof SandboxError) result = errorBody(error.serviceCode, error.message, requestId);
      else failure = error;
    }
    // A sandbox that keeps its state has it on disk (the charge, this answer, the files it names)
    // before the answer can reach anyone: the client, or a retry waiting on the same key.
    if (unit) {
      try {
        await unit.commit({
          account: account.name,
          at: now,
          credits: charged,
          key: idempotencyKey,
          answer: { status, body: result },
        });
      } catch (error) {
        status = 500;
        result = errorBody('internal_error', 'the sandbox could not save its state for this request', requestId);
        failure ??= error;
      }
    }
    // Stored before the answer is written: a reset after the work still leaves it for the retry.
    remember?.({ status, body: result, at: now });
    if (failure !== undefined) throw failure;
    if (plan.resetAfter) {
      sandbox.stats.fault('reset_after');
      request.socket.destroy();
      return;
    }
    answer(status, result);
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    answerError(error);
  }
}

/** Latency, resets before any work, 5xx answers and stalls. True when the request is finished. */
async function applyTransportFaults(
  sandbox: SandboxState,
  plan: FaultPlan,
  request: IncomingMessage,
  response: ServerResponse,
  answer: (status: number, body: unknown, headers?: Record<string, string>) => void,
  requestId: string,
): Promise<boolean> {
  if (plan.latencyMs > 0) {
    sandbox.stats.fault('latency');
    await sleep(plan.latencyMs);
  }
  if (plan.resetBefore) {
    sandbox.stats.fault('reset_before');
    request.socket.destroy();
    return true;
  }
  if (plan.status !== undefined) {
    sandbox.stats.fault(`status_${plan.status}`);
    await drain(request);
    answer(
      plan.status,
      errorBody('internal_error', `${SERVER_ERRORS[plan.status]} (sandbox fault)`, requestId),
      plan.status === 503 ? { 'retry-after': '1' } : {},
    );
    return true;
  }
  if (plan.stallMs !== undefined) {
    sandbox.stats.fault('stall');
    await sleep(plan.stallMs);
    request.socket.destroy();
    response.destroy();
    return true;
  }
  return false;
}

function retryHeaders(error: SandboxError): Record<string, string> {
  return error.retryAfter === undefined ? {} : { 'retry-after': String(error.retryAfter) };
}

function bearerKey(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return match?.[1];
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new SandboxError('request_too_large', `request bodies are limited to ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let data: unknown;
  try {
    data = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new SandboxError('invalid_json', 'the request body is not valid JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SandboxError('invalid_json', 'the request body must be a JSON object');
  }
  return data as Record<string, unknown>;
}

/** Read and drop a body we will not use, so the connection can be reused. */
function drain(request: IncomingMessage): Promise<void> {
  if (request.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    request
      .once('end', resolve)
      .once('close', resolve)
      .once('error', () => resolve());
    request.resume();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
