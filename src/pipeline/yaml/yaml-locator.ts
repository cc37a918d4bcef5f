/**
 * Maps a path into the parsed data (e.g. ['steps', 2, 'generate', 'model']) back to the line and
 * column of the YAML node that holds it, so every problem can say where to look.
 */
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { FilePosition } from '../problem.js';
import { LineIndex } from './line-index.js';

export type DataPath = readonly PropertyKey[];

export class YamlLocator {
  readonly file: string;
  readonly #doc: Document.Parsed;
  readonly #lines: LineIndex;
  readonly #length: number;

  constructor(file: string, doc: Document.Parsed, text: string) {
    this.file = file;
    this.#doc = doc;
    this.#lines = new LineIndex(text);
    this.#length = text.length;
  }

  start(): FilePosition {
    return this.at(this.#doc.contents?.range?.[0] ?? 0);
  }

  /** A source offset as a 1-based line and column. */
  at(offset: number): FilePosition {
    const { line, col } = this.#lines.position(Math.min(Math.max(0, offset), this.#length));
    return { file: this.file, line, col };
  }

  /**
   * The value at `path`, or its key with `{ key: true }`. When the path goes further than the
   * document (a missing field), the deepest node that exists is used.
   */
  locate(path: DataPath, options: { key?: boolean } = {}): FilePosition {
    return this.at(this.#offset(path, options.key ?? false));
  }

  /** The YAML node at `path`, if the document has one there. */
  node(path: DataPath): Node | undefined {
    const found = this.#walk(path);
    return found.complete ? found.node : undefined;
  }

  /** The source text between two offsets (used to find a template inside a scalar). */
  sourceRange(node: Node): { start: number; end: number } | undefined {
    return node.range ? { start: node.range[0], end: node.range[1] } : undefined;
  }

  #offset(path: DataPath, wantKey: boolean): number {
    const found = this.#walk(path);
    if (wantKey && found.complete && found.keyNode?.range) return found.keyNode.range[0];
    return found.node?.range?.[0] ?? 0;
  }

  #walk(path: DataPath): { node: Node | undefined; keyNode: Node | undefined; complete: boolean } {
    let node: Node | undefined = this.#resolve(this.#doc.contents ?? undefined);
    let keyNode: Node | undefined;
    for (const segment of path) {
      const next = this.#child(node, segment);
      if (!next) return { node, keyNode: undefined, complete: false };
      node = this.#resolve(next.value);
      keyNode = next.key;
      if (!node) return { node: next.key, keyNode, complete: false };
    }
    return { node, keyNode, complete: true };
  }

  #child(node: Node | undefined, segment: PropertyKey): { key: Node | undefined; value: Node | undefined } | undefined {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const keyValue = isScalar(key) ? key.value : key;
        if (String(keyValue) === String(segment)) {
          return { key: key as Node | undefined, value: (pair.value ?? undefined) as Node | undefined };
        }
      }
      return undefined;
    }
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      return item === undefined ? undefined : { key: undefined, value: item as Node };
    }
    return undefined;
  }

  #resolve(node: Node | undefined): Node | undefined {
    // Follow aliases so a field set through an anchor points at where its value is written.
    let current = node;
    for (let hops = 0; isAlias(current) && hops < 10; hops++) {
      current = current.resolve(this.#doc) ?? undefined;
    }
    return current;
  }
}
