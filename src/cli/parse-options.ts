/** node:util parseArgs errors ("Unknown option '--jsn'") become usage errors that name the command. */
import { UsageError } from '../errors.js';

export function withUsageErrors<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}
