/**
 * `--rows SEL`: the rows a plan counts and a run takes, as row indices in the order of the rows
 * file (however the selectors were written, and each row once). Every selector must name at least
 * one row: a typo is a usage error before anything is planned or sent, never an empty run.
 */
import { UsageError } from '../errors.js';
import { type RowKeys, RowMatcher, selectorsOf } from './row-matcher.js';

/** Row indices, ascending: what the scheduler takes (its `rowOrder`). */
export function selectRows(values: readonly string[], rows: RowKeys, matcher = new RowMatcher(rows)): Uint32Array {
  const chosen = new Uint8Array(rows.count);
  const problems: string[] = [];
  for (const selector of selectorsOf(values)) {
    if (selector === '') {
      problems.push('--rows: an empty selector (two commas, or a comma at an end)');
      continue;
    }
    const match = matcher.match(selector);
    if ('problem' in match) problems.push(`--rows ${selector}: ${match.problem}`);
    else for (const index of match.rows) chosen[index] = 1;
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  let count = 0;
  for (const flag of chosen) count += flag;
  const order = new Uint32Array(count);
  for (let index = 0, at = 0; index < chosen.length; index++) if (chosen[index]) order[at++] = index;
  return order;
}
