/** GET /files/<id>.<ext>: the result bytes; 410 once expired, 404 when unknown. No key needed. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, sendJson } from './respond.js';
import type { SandboxState } from './sandbox-state.js';

export async function serveFile(
  sandbox: SandboxState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const requestId = sandbox.newId('req');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return sendJson(response, 405, errorBody('method_not_allowed', 'files take GET', requestId));
  }
  const found = sandbox.files.lookup(path, sandbox.now());
  if (!found) return sendJson(response, 404, errorBody('not_found', `no file ${path}`, requestId));
  const plan = sandbox.faults.plan('file', path, headerValue(request.headers['x-sandbox-fault']));
  if (found.expired || plan.expired) {
    sandbox.stats.filesExpired++;
    if (plan.expired) sandbox.stats.fault('expired_url');
    return sendJson(
      response,
      410,
      errorBody('expired', 'this result URL has expired (results are kept 24 hours)', requestId),
    );
  }
  const bytes = await sandbox.files.bytes(found.file);
  sandbox.stats.filesServed++;
  response.writeHead(200, {
    'content-type': found.file.mediaType,
    'content-length': String(bytes.length),
    'cache-control': 'private, max-age=86400',
  });
  response.end(request.method === 'HEAD' ? undefined : bytes);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
