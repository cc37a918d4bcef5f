/**
 * The admin endpoints tests and benchmarks use (no key: the sandbox listens on loopback):
 *   GET  /__sandbox/stats    counters: requests, charges (by account, by idempotency key), faults
 *   GET  /__sandbox/accounts each account's plan, credits, quota used
 *   POST /__sandbox/clock    {"advance_ms": N}: move the sandbox clock forward
 *   POST /__sandbox/faults   {"script": [{"fault": "status=503", "path": "/v1/generate"}, ...]}
 *                            or {"clear": true}: scripted outcomes for the next matching requests
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScriptEntry } from './faults.js';
import { errorBody, sendJson } from './respond.js';
import { SandboxError } from './sandbox-error.js';
import type { SandboxState } from './sandbox-state.js';
import { settleJobs } from './settle-jobs.js';

export async function adminRoute(
  sandbox: SandboxState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const id = sandbox.newId('adm');
  try {
    const route = `${request.method} ${path}`;
    if (route === 'GET /__sandbox/stats') {
      settleJobs(sandbox);
      return sendJson(response, 200, { ...sandbox.stats.toJSON(), jobs: sandbox.jobs.counts() });
    }
    if (route === 'GET /__sandbox/accounts') return sendJson(response, 200, { accounts: accountsJson(sandbox) });
    const body = await readBody(request);
    if (route === 'POST /__sandbox/clock') {
      const advance = body.advance_ms;
      if (typeof advance !== 'number' || advance < 0)
        throw new SandboxError('invalid_parameter', 'advance_ms must be a number >= 0');
      sandbox.clock.advance(advance);
      return sendJson(response, 200, { now: sandbox.now() });
    }
    if (route === 'POST /__sandbox/faults') {
      if (body.clear === true) sandbox.faults.clearScript();
      if (body.script !== undefined) sandbox.faults.script(scriptOf(body.script));
      return sendJson(response, 200, { ok: true });
    }
    throw new SandboxError('not_found', `no admin route ${route}`);
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    sendJson(response, error.status, errorBody(error.serviceCode, error.message, id));
  }
}

export function accountsJson(sandbox: SandboxState) {
  return sandbox.accounts.all().map((account) => ({
    name: account.name,
    key: account.key,
    plan: account.plan,
    credits: account.credits,
    quota: account.limit,
    used_24h: account.used(sandbox.now()),
  }));
}

function scriptOf(value: unknown): ScriptEntry[] {
  if (!Array.isArray(value)) throw new SandboxError('invalid_parameter', 'script must be a list of {fault, path?}');
  return value.map((entry: unknown) => {
    const { fault, path } = (entry ?? {}) as { fault?: unknown; path?: unknown };
    if (typeof fault !== 'string' || (path !== undefined && typeof path !== 'string')) {
      throw new SandboxError('invalid_parameter', 'each script entry is {"fault": "...", "path": "/v1/..."}');
    }
    return path === undefined ? { fault } : { fault, path };
  });
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  if (chunks.length === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new SandboxError('invalid_json', 'the request body is not valid JSON');
  }
}
