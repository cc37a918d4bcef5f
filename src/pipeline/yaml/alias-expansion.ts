/**
 * How large a document becomes once its aliases are expanded. An alias bomb is a few lines whose
 * anchors nest aliases of aliases, growing exponentially; ordinary reuse (one anchor used on every
 * row) grows linearly. So we limit the expanded size, not the number of alias uses, and measure it
 * with a memoised walk that stops as soon as the limit is passed.
 */
import { type Document, isAlias, isMap, isPair, isSeq, type Node } from 'yaml';

/** Nodes that aliases may add to a document: far above any real pipeline, far below a bomb. */
export const MAX_ALIAS_EXPANSION = 1_000_000;

export interface AliasExpansion {
  /** The alias whose expansion passed the limit, or undefined when within it. */
  readonly offender: Node | undefined;
  readonly cyclic: boolean;
}

export function checkAliasExpansion(doc: Document.Parsed): AliasExpansion {
  // Anchors as the walk meets them, in document order: an alias means the latest anchor of its
  // name before it. (yaml's Alias.resolve searches the whole document each time: quadratic.)
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const inProgress = new Set<Node>();
  let added = 0;
  let offender: Node | undefined;
  let cyclic = false;

  const size = (node: unknown): number => {
    if (offender || cyclic || node === null || node === undefined) return 0;
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) return 1;
      if (inProgress.has(target)) {
        cyclic = true;
        offender = node;
        return 0;
      }
      const expanded = size(target);
      added += expanded;
      if (added > MAX_ALIAS_EXPANSION && !offender) offender = node;
      return expanded;
    }
    const known = sizes.get(node as Node);
    if (known !== undefined) return known;
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, node as Node);
    inProgress.add(node as Node);
    let total = 1;
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) total += isPair(item) ? size(item.key) + size(item.value) : size(item);
    }
    inProgress.delete(node as Node);
    sizes.set(node as Node, total);
    return total;
  };

  size(doc.contents);
  return { offender, cyclic };
}
