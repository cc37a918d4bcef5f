/**
 * How deep a YAML text nests, measured on yaml's concrete syntax tree with an explicit stack.
 * Deeply nested input (thousands of levels) overflows the call stack of anything recursive that
 * reads it later, so the depth is checked before the document is built.
 */
import { type CST, Parser } from 'yaml';

/** The deepest nesting of mappings and lists a pipeline or rows file may use. Real pipelines use under 10. */
export const MAX_NESTING_DEPTH = 64;

export interface TooDeep {
  /** Offset in the text of the collection that passes the limit. */
  readonly offset: number;
}

/** The first collection nested deeper than `limit`, or undefined when the text stays within it. */
export function findTooDeep(text: string, limit = MAX_NESTING_DEPTH): TooDeep | undefined {
  const stack: { token: CST.Token | undefined; depth: number }[] = [];
  for (const token of new Parser().parse(text)) stack.push({ token, depth: 0 });
  while (stack.length > 0) {
    const { token, depth } = stack.pop() as { token: CST.Token | undefined; depth: number };
    if (token === undefined) continue;
    switch (token.type) {
      case 'document':
        stack.push({ token: token.value, depth });
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        const inner = depth + 1;
        if (inner > limit) return { offset: collectionOffset(token) };
        for (const item of token.items) {
          if ('key' in item) stack.push({ token: item.key ?? undefined, depth: inner });
          stack.push({ token: item.value, depth: inner });
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

function collectionOffset(token: CST.BlockMap | CST.BlockSequence | CST.FlowCollection): number {
  if (token.type === 'flow-collection') return token.start.offset;
  const first = token.items[0];
  return first?.start[0]?.offset ?? token.offset;
}
