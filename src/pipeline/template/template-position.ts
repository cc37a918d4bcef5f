/**
 * Where a template sits in the YAML source. A scalar's value and its source text differ by quotes,
 * escapes and folding, so we look for the template's own text inside the scalar's source range,
 * falling back to the scalar's start.
 */
import type { FilePosition } from '../problem.js';
import type { DataPath, YamlLocator } from '../yaml/yaml-locator.js';

export function templatePosition(
  locator: YamlLocator,
  sourceText: string,
  path: DataPath,
  templateSource: string,
  occurrence: number,
): FilePosition {
  const node = locator.node(path);
  const range = node ? locator.sourceRange(node) : undefined;
  if (!range) return locator.locate(path);
  let from = range.start;
  for (let seen = 0; seen <= occurrence; seen++) {
    const found = sourceText.indexOf(templateSource, from);
    if (found === -1 || found >= range.end) return locator.at(range.start);
    if (seen === occurrence) return locator.at(found);
    from = found + templateSource.length;
  }
  return locator.at(range.start);
}
