/**
 * A run that waits on a promise nobody will ever settle (a bug) would let the event loop empty,
 * and Node would exit 0 with no summary, no manifest and the lock left behind: a nightly job
 * would call that success. Node says so before it exits ('beforeExit'); this turns it into an
 * answer the run can act on: write what it knows and end with the internal-error code.
 */

export type Settled<T> = { readonly stalled: false; readonly value: T } | { readonly stalled: true };

export function settledOrStalled<T>(work: Promise<T>): Promise<Settled<T>> {
  return new Promise((resolve, reject) => {
    const onBeforeExit = () => resolve({ stalled: true });
    process.once('beforeExit', onBeforeExit);
    work.then(
      (value) => {
        process.off('beforeExit', onBeforeExit);
        resolve({ stalled: false, value });
      },
      (error: unknown) => {
        process.off('beforeExit', onBeforeExit);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
