/**
 * Windows-1252, what Excel on Windows writes for "CSV": ISO 8859-1 except 0x80 to 0x9F, which
 * hold the euro sign, curly quotes and dashes. Node 20's TextDecoder('windows-1252') decodes those
 * as C1 control characters (ISO 8859-1), so the 32 bytes are mapped here, as WHATWG specifies.
 */

/** 0x80 to 0x9F; the five bytes windows-1252 leaves undefined keep their own code point. */
const HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

export function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (c) => HIGH[c.charCodeAt(0) - 0x80] ?? c);
}
