/**
 * UTF-8 decoding that refuses invalid bytes instead of replacing them with U+FFFD, and says where
 * the first invalid byte is. A file saved as Latin-1 (Excel on Windows) otherwise validates and
 * sends "caf\uFFFD" for "café".
 */

export type DecodedText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly line: number; readonly col: number; readonly byte: number };

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text, or the 1-based line and column (in characters) of the first byte that is not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): DecodedText {
  try {
    return { ok: true, text: fatal.decode(bytes) };
  } catch {
    const offset = firstInvalidByte(bytes);
    const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
    let line = 1;
    for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
    const col = fatal.decode(bytes.subarray(lineStart, offset)).length + 1;
    return { ok: false, line, col, byte: bytes[offset] ?? 0 };
  }
}

/** Offset of the first byte that does not start a valid UTF-8 sequence. */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      // The decoder itself judges continuation bytes, overlong forms and surrogates.
      fatal.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return bytes.length;
}

/** "0xE9", for messages. */
export function hexByte(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}
