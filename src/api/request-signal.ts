/**
 * One signal for one request: the caller's (the run's) and the attempt's own time limit, undone
 * when the request ends. Every request gets its own, time limit or not: the platform fetch keeps a
 * listener on the signal it is given until its Request is garbage-collected (and counts them on
 * every call), so the long-lived run signal given to thousands of requests would pile them up.
 * Nor AbortSignal.any with AbortSignal.timeout: they leave a timer and a listener per request on
 * the run signal too.
 */
export interface RequestSignal {
  readonly signal: AbortSignal | undefined;
  /** Call when the request has ended, its body read or dropped. */
  readonly dispose: () => void;
  /** Whether the attempt's own time limit ended it (not the caller). */
  readonly timedOut: () => boolean;
}

const NONE: RequestSignal = { signal: undefined, dispose: () => undefined, timedOut: () => false };

export function requestSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): RequestSignal {
  if (parent === undefined && timeoutMs === undefined) return NONE;
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException('the attempt took too long', 'TimeoutError'));
        }, timeoutMs);
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
    timedOut: () => timedOut,
  };
}
