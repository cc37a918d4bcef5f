/**
 * Why a run stops starting work, and the error a request gets when it would start after that.
 * The first stop of any kind closes the gate at once: requests already on the wire finish, nothing
 * waiting for a slot (a first try, a retry, a video poll) is sent.
 */

export type StopReason = 'credits' | 'quota' | 'auth' | 'storage' | 'interrupted' | 'internal';

export class RunStopping extends Error {
  readonly reason: StopReason;

  constructor(reason: StopReason) {
    super(`not sent: the run is stopping (${reason})`);
    this.name = 'RunStopping';
    this.reason = reason;
  }
}
