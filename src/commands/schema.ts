/**
 * `assetline schema [pipeline|manifest]`: the JSON Schema of pipeline files, for editors
 * (yaml-language-server), or of the manifest a run writes, for scripts that read it.
 */

import { parseArgs } from 'node:util';
import type { CommandIo } from '../cli/io.js';
import { withUsageErrors } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { manifestJsonSchema } from '../manifest/manifest-json-schema.js';
import { pipelineJsonSchema } from '../pipeline/schema/json-schema.js';

const SCHEMAS: Readonly<Record<string, () => object>> = {
  pipeline: pipelineJsonSchema,
  manifest: manifestJsonSchema,
};

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { positionals } = withUsageErrors('schema', () =>
    parseArgs({ args: [...args], allowPositionals: true, options: {} }),
  );
  const name = positionals[0] ?? 'pipeline';
  const build = SCHEMAS[name];
  if (!build || positionals.length > 1) {
    throw new UsageError(`schema: expected one of ${Object.keys(SCHEMAS).join(', ')}, got "${positionals.join(' ')}"`);
  }
  io.stdout(`${JSON.stringify(build(), null, 2)}\n`);
  return EXIT.ok;
}
