/**
 * Why a merge refuses, always before it writes anything: folders of different pipelines or
 * versions, shards of different counts, one row with two different results, missing shards, a
 * path that leads outside, a folder that is not an output folder. Exit 2, as a usage error: the
 * command or its folders need fixing, and merging again as it is would refuse again.
 */
import { AssetlineError, EXIT } from '../errors.js';

export class MergeRefusedError extends AssetlineError {
  constructor(message: string) {
    super('merge-refused', `merge: ${message}`, EXIT.usage);
    this.name = 'MergeRefusedError';
  }
}
