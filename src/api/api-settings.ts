/**
 * What the client needs of the pipeline's `api:` block, resolved: how to ask a video job's status,
 * the request field names the reference leaves open, where else to look for answer fields, the
 * poll schedule and timeout policy, and the backoff between tries. The pipeline's resolved
 * settings carry these and more; the client is given them as they are (they fit this shape).
 */

export interface ApiSettings {
  readonly video: {
    readonly statusMethod: 'POST' | 'GET';
    /** `{request_id}` is replaced (for GET). */
    readonly statusPath: string;
    readonly fieldNames: { readonly aspect_ratio: string; readonly duration: string };
    readonly pollIntervalSeconds: number;
    readonly pollIntervalMaxSeconds: number;
    readonly timeoutSeconds: number;
    readonly onTimeout: 'resubmit' | 'keep-polling' | 'fail';
  };
  readonly retry: { readonly baseSeconds: number; readonly capSeconds: number };
  /** Extra places to look for answer fields (api.response_paths), tried first. */
  readonly responsePaths: Readonly<Record<string, string>>;
}
