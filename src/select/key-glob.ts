/**
 * The globs of `--rows` and `--redo`: `*` for any run of characters (none included) and `?` for
 * one, matched against the whole key, case-sensitive as row keys and step ids are. Nothing else is
 * special: `[`, `{` or `\` in a sheet's keys mean themselves. (path.matchesGlob would treat them as
 * patterns, and arrives only in Node 22.)
 */

/** True when the selector is a glob rather than a name. */
export function isGlob(selector: string): boolean {
  return selector.includes('*') || selector.includes('?');
}

/** The glob as an anchored regular expression, every other character escaped. */
export function globPattern(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    // Only the characters that are syntax: the `u` flag refuses any other escape (`\-`).
    else source += char.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  // `s`: a key with a line break in it (a sheet cell can hold one) still matches `*`.
  return new RegExp(`^${source}$`, 'su');
}
