/**
 * The network errors that mean "it never connected", in words a person reads after "could not
 * reach <url>". Anything else keeps its code.
 */
const CONNECT_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  // fetch's own refusal of a blocked port (http://127.0.0.1:1): nothing could connect there.
  bad_port: 'connection refused',
};

export function connectCause(code: string): string {
  return CONNECT_CAUSES[code] ?? code;
}
