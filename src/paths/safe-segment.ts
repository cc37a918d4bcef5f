/**
 * Turn a value from spreadsheet data (a row key) into one safe folder name: no separators, no "."
 * or "..", no control characters, no reserved device names, bounded length. Whatever the data
 * says, the result names a folder directly inside the output folder.
 */

const MAX_LENGTH = 100;
const UNSAFE = /[^\p{L}\p{N}._-]+/gu;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

export function safeSegment(value: string): string {
  let segment = value.normalize('NFC').replace(UNSAFE, '_');
  // No hidden folders, no "." or "..".
  segment = segment.replace(/^\.+/, (dots) => '_'.repeat(dots.length));
  if (segment.length > MAX_LENGTH) segment = segment.slice(0, MAX_LENGTH);
  if (segment === '') return '_';
  if (WINDOWS_RESERVED.test(segment)) segment = `_${segment}`;
  return segment;
}
