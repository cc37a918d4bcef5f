/**
 * The text of a rows file in its declared encoding. UTF-8 (the default) is strict: a byte that is
 * not UTF-8 is an error at its line, never a silent U+FFFD. UTF-8 and UTF-16 use Node's built-in
 * TextDecoder. windows-1252 is decoded by iconv-lite: Node's own TextDecoder('windows-1252') (Node
 * 20.20 with full ICU) turns 0x80 to 0x9F, the euro sign, curly quotes and dashes Excel writes,
 * into control characters.
 */
import iconv from 'iconv-lite';
import { decodeUtf8, hexByte } from './strict-utf8.js';

/** The encodings `rows.encoding` accepts. `latin1` is read as windows-1252, as browsers do. */
export const ROWS_ENCODINGS = ['utf-8', 'windows-1252', 'latin1', 'utf-16'] as const;
export type RowsEncoding = (typeof ROWS_ENCODINGS)[number];

export type DecodedRows =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string; readonly line?: number; readonly col?: number };

export function decodeRowsFile(bytes: Uint8Array, encoding: RowsEncoding = 'utf-8'): DecodedRows {
  switch (encoding) {
    case 'utf-8': {
      const decoded = decodeUtf8(bytes);
      if (decoded.ok) return decoded;
      return {
        ok: false,
        message:
          `byte ${hexByte(decoded.byte)} here is not valid UTF-8; save the file as UTF-8, or declare its encoding: ` +
          'rows: { file: ..., encoding: windows-1252 } (what Excel on Windows writes)',
        line: decoded.line,
        col: decoded.col,
      };
    }
    case 'windows-1252':
    case 'latin1':
      // Every byte means a character in windows-1252, so this cannot fail.
      return {
        ok: true,
        text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'windows-1252'),
      };
    case 'utf-16':
      return decodeUtf16(bytes);
  }
}

/** UTF-16 with a byte-order mark, which tells little-endian (FF FE) from big-endian (FE FF). */
function decodeUtf16(bytes: Uint8Array): DecodedRows {
  const label =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : undefined;
  if (label === undefined) {
    return { ok: false, message: 'encoding utf-16: the file does not start with a byte-order mark (FF FE or FE FF)' };
  }
  try {
    return { ok: true, text: new TextDecoder(label, { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      message: `encoding utf-16: the file is not valid ${label.toUpperCase()} (a cut-off character or a lone surrogate)`,
    };
  }
}
