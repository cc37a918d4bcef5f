/**
 * Offsets to 1-based line and column, from the text itself. yaml's LineCounter only knows the line
 * starts its lexer reported, and after a syntax error inside a multi-line token it misses some,
 * which put columns past the end of their line; indexing the text cannot drift.
 */
export class LineIndex {
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.#starts.push(i + 1);
  }

  position(offset: number): { line: number; col: number } {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: offset - (this.#starts[low] ?? 0) + 1 };
  }
}
