/** The library's `validate()`: the object `assetline validate --json` prints. */
import path from 'node:path';
import { type ValidationResult, validatePipelineFile } from '../pipeline/validate-pipeline.js';
import { type ValidationJson, validationJson } from '../pipeline/validation-json.js';

export interface ValidateOptions {
  /**
   * The folder relative pipeline paths are resolved against; messages name files as given.
   * @default process.cwd()
   */
  readonly cwd?: string;
}

/**
 * Checks pipelines without sending anything. An invalid pipeline is not an error here: the result
 * says `valid: false` and lists every problem with its file, line and column.
 *
 * @param files One pipeline file or several.
 * @returns `{ valid, files: [{ file, valid, errors, warnings, counts }] }`
 */
export async function validate(
  files: string | readonly string[],
  options: ValidateOptions = {},
): Promise<ValidationJson> {
  const cwd = options.cwd ?? process.cwd();
  const results: ValidationResult[] = [];
  for (const file of typeof files === 'string' ? [files] : files)
    results.push(await validatePipelineFile(path.resolve(cwd, file), { displayPath: file }));
  return validationJson(results);
}
