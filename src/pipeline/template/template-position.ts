/**
 * Where a template sits in the YAML source. A scalar's value and its source text differ by quotes,
 * escapes and folding, but every `${{` of the value is written as `${{` in the source (no escape
 * produces it), so the n-th one in the value is the n-th one in the scalar's source.
 */
import type { FilePosition } from '../problem.js';
import type { DataPath, YamlLocator } from '../yaml/yaml-locator.js';

const OPEN = '${{';

export function templatePosition(
  locator: YamlLocator,
  sourceText: string,
  path: DataPath,
  occurrence: number,
): FilePosition {
  const node = locator.node(path);
  const range = node ? locator.sourceRange(node) : undefined;
  if (!range) return locator.locate(path);
  let found = sourceText.indexOf(OPEN, range.start);
  for (let seen = 0; seen < occurrence && found !== -1; seen++) found = sourceText.indexOf(OPEN, found + OPEN.length);
  return locator.at(found === -1 || found >= range.end ? range.start : found);
}
