/** The saved state of the sandbox cannot be read or written: said with the way out. */
import { AssetlineError, EXIT } from '../../errors.js';

export class SandboxStateError extends AssetlineError {
  declare readonly code: 'sandbox-state-unreadable';

  constructor(dir: string, problem: string, cause?: unknown) {
    super(
      'sandbox-state-unreadable',
      `the sandbox's saved state in ${dir} ${problem}. Delete that folder to start the sandbox afresh; its results, video jobs and stored answers are then forgotten, so run the pipelines that used them again with --fresh`,
      EXIT.usage,
    );
    this.name = 'SandboxStateError';
    if (cause !== undefined) this.cause = cause;
  }
}
