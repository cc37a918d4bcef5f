/**
 * `assetline schema [pipeline|manifest]`: the JSON Schema of pipeline files, for editors
 * (yaml-language-server), or of the manifest a run writes, for scripts that read it.
 */

import type { CommandIo } from '../cli/io.js';
import { parseCommandArgs } from '../cli/parse-options.js';
import { EXIT, UsageError } from '../errors.js';
import { manifestJsonSchema } from '../manifest/manifest-json-schema.js';
import { pipelineJsonSchema } from '../pipeline/schema/json-schema.js';

const SCHEMAS: Readonly<Record<string, () => object>> = {
  pipeline: pipelineJsonSchema,
  manifest: manifestJsonSchema,
};

const HELP = `Usage: assetline schema [pipeline|manifest]

Prints a JSON Schema on stdout: of pipeline files (the default), for an editor's completion and
checks (e.g. "# yaml-language-server: $schema=..." at the top of a pipeline), or of the
manifest.json a run writes, for scripts that read it. Both are checked in as
schemas/pipeline.schema.json and schemas/manifest.schema.json.

Exit codes: 0 printed, 2 usage (an unknown schema name or option).`;

export async function run(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('schema', {
    args: [...args],
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return EXIT.ok;
  }
  const name = positionals[0] ?? 'pipeline';
  const build = SCHEMAS[name];
  if (!build || positionals.length > 1) {
    throw new UsageError(`schema: expected one of ${Object.keys(SCHEMAS).join(', ')}, got "${positionals.join(' ')}"`);
  }
  io.stdout(`${JSON.stringify(build(), null, 2)}\n`);
  return EXIT.ok;
}
