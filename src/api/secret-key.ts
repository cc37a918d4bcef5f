/**
 * The API key, held where no log line, error message, manifest or report can pick it up: a
 * private field that prints as "[redacted]" however the object is printed, serialised or
 * inspected. The Authorization header is built from it at dispatch, and any text the service
 * sends back is scrubbed of it before it goes into an error.
 */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

export class SecretKey {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
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
