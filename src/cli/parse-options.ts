/** Reading command-line options: errors become usage errors that name the command and the flag. */
import { UsageError } from '../errors.js';

/** node:util parseArgs errors ("Unknown option '--jsn'") become usage errors that name the command. */
export function withUsageErrors<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

/** A flag's whole number of at least `min`, or undefined when the flag is absent. */
export function wholeNumber(command: string, flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(
      `${command}: ${flag} expects a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${value}"`,
    );
  return Number(value);
}
