/** Reading command-line options: errors become usage errors that name the command and the flag. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { closestMatch } from '../pipeline/did-you-mean.js';

/**
 * node:util parseArgs, with its errors as usage errors a person can act on. An unknown flag is
 * named with the closest known one and where the options are listed, instead of Node's advice
 * about positionals starting with '-', which does not apply to a misspelt flag.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const help = `run "assetline ${command} --help" for its options`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /Unknown option '([^']+)'/.exec(message)?.[1] ?? message;
      const known = Object.entries(config.options ?? {}).flatMap(([name, option]) =>
        option.short === undefined ? [`--${name}`] : [`--${name}`, `-${option.short}`],
      );
      const guess = closestMatch(flag, known);
      throw new UsageError(
        `unknown option ${flag} for ${command}${guess === undefined ? '' : `; did you mean ${guess}?`} (${help})`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const extra = /Unexpected argument '([^']+)'/.exec(message)?.[1];
      throw new UsageError(`${command} takes no argument${extra === undefined ? '' : ` "${extra}"`} here (${help})`);
    }
    // A missing value ("Option '--out <value>' argument missing") or a value given to a switch.
    throw new UsageError(`${command}: ${message.replace(/\.$/, '')} (${help})`);
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
