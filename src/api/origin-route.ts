/**
 * Connections meant for one origin, opened to another address. Only `run --sandbox` uses it: the
 * embedded sandbox keeps its state between runs, and its result URLs keep the origin that state
 * was first served from, while each run's sandbox listens wherever it could (its old port may be
 * taken). Routing at the connection leaves every URL as the sandbox wrote it: a run resumed from
 * its journal downloads, and sends as inputs, the URLs an earlier run was answered with.
 */
import { buildConnector } from 'undici';

export interface OriginRoute {
  /** `http://127.0.0.1:PORT`: the origin the URLs name. */
  readonly origin: string;
  /** `http://127.0.0.1:PORT`: where it is served now. */
  readonly address: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** undici's connector, with connections for the route's origin opened to its address instead. */
export function routedConnector(route: OriginRoute, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  const from = new URL(route.origin);
  const to = new URL(route.address);
  const portOf = (protocol: string, port: string) => port || DEFAULT_PORTS[protocol] || '';
  return (options, callback) => {
    const routed =
      options.protocol === from.protocol &&
      options.hostname === from.hostname &&
      portOf(options.protocol, options.port) === portOf(from.protocol, from.port);
    connect(routed ? { ...options, hostname: to.hostname, host: to.host, port: to.port } : options, callback);
  };
}
