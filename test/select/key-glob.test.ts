/** The selectors' globs: `*` and `?` only, over whole keys; everything else means itself. */
import { describe, expect, it } from 'vitest';
import { globPattern, isGlob } from '../../src/select/key-glob.js';

const matches = (glob: string, key: string) => globPattern(glob).test(key);

describe('key globs', () => {
  it('match whole keys with * for any run of characters and ? for one', () => {
    expect(matches('SKU-1*', 'SKU-1')).toBe(true);
    expect(matches('SKU-1*', 'SKU-12')).toBe(true);
    expect(matches('SKU-1*', 'XSKU-12')).toBe(false);
    expect(matches('?2', 'B2')).toBe(true);
    expect(matches('?2', 'BB2')).toBe(false);
    expect(matches('*', '')).toBe(true);
    expect(matches('a*b', 'a\nb')).toBe(true);
  });

  it('take every other character literally, regex and path syntax included', () => {
    expect(matches('a.b', 'axb')).toBe(false);
    expect(matches('[x]*', '[x]1')).toBe(true);
    expect(matches('{a,b}', 'a')).toBe(false);
    expect(matches('a\\b*', 'a\\bc')).toBe(true);
    expect(matches('x+(y)|z^$', 'x+(y)|z^$')).toBe(true);
    expect(matches('é?', 'éü')).toBe(true);
  });

  it('are told apart from names by * or ?', () => {
    expect(isGlob('SKU-1')).toBe(false);
    expect(isGlob('SKU-*')).toBe(true);
    expect(isGlob('A?')).toBe(true);
  });
});
