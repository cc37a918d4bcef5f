/**
 * Why a run stops starting work, and the error a request gets when it would start after that.
 * The first stop of any kind closes the gate at once: requests already on the wire finish, nothing
 * waiting for a slot (a first try, a retry, a video poll) is sent.
 */

/** `unreachable`: several requests in a row could not connect to the service at all. */
export type StopReason = 'credits' | 'quota' | 'auth' | 'storage' | 'unreachable' | 'interrupted' | 'internal';

export class RunStopping extends Error {
  readonly reason: StopReason;

  constructor(reason: StopReason) {
    super(`not sent: the run is stopping (${reason})`);
    this.name = 'RunStopping';
    this.reason = reason;
  }
}
