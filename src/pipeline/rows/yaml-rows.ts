/** Rows from a YAML file next to the pipeline: a list of mappings, with positions for messages. */

import { issuesToProblems } from '../schema/issue-to-problems.js';
import { parseYaml } from '../yaml/parse-yaml.js';
import type { RowsResult } from './csv-rows.js';
import { rowListSchema } from './json-rows.js';
import { tableFromRecords } from './row-table.js';

export function yamlRows(file: string, text: string): RowsResult {
  const parsed = parseYaml(file, text);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  const { data, locator } = parsed.value;
  const result = rowListSchema.safeParse(data, { reportInput: true });
  if (!result.success)
    return { ok: false, problems: issuesToProblems(rowListSchema, result.error.issues, data, locator) };
  return { ok: true, table: tableFromRecords(file, result.data, (index) => locator.locate([index])) };
}
