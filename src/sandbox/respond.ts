/** Answers: JSON everywhere, with the request id in the body and in a header. */
import type { ServerResponse } from 'node:http';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

export function errorBody(code: string, message: string, requestId: string) {
  return { success: false, code, message, request_id: requestId };
}
