/**
 * The API key, held where no log line, error message, manifest or report can pick it up: a
 * private field that prints as "[redacted]" however the object is printed, serialised or
 * inspected. The Authorization header is built from it at dispatch, and any text the service
 * sends back is scrubbed of it before it goes into an error.
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * Why a key cannot go into an Authorization header, or undefined when it can. Says where the bad
 * character is and what it is, never the key: a secret pasted with a line break is the usual case.
 */
export function keyHeaderProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // What HTTP allows in a header value: tab, visible ASCII, space, and obs-text (0x80-0xFF).
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)) continue;
    const name =
      code === 0x0a
        ? 'a line break'
        : code === 0x0d
          ? 'a carriage return'
          : code < 0x20 || code === 0x7f
            ? `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`
            : `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains ${name} at position ${i + 1} of ${value.length}`;
  }
  return undefined;
}

export class SecretKey {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /**
   * Names the key where it must be told apart from others (the request ledger's folder): a hash,
   * so nothing written ever holds the key.
   */
  id(): string {
    return createHash('sha256').update(`assetline-ledger:${this.#value}`).digest('hex').slice(0, 16);
  }

  /** Why this key cannot go into a header, or undefined when it can. */
  headerProblem(): string | undefined {
    return keyHeaderProblem(this.#value);
  }

  authorization(): string {
    return `Bearer ${this.#value}`;
  }

  /** The text with every occurrence of the key replaced. */
  scrub(text: string): string {
    return this.#value.length > 0 ? text.split(this.#value).join(REDACTED) : text;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
