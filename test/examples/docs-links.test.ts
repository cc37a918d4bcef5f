/**
 * The docs hold together: every relative link in README.md and docs/*.md leads to a file of the
 * repository, and every #anchor to a heading of that file (GitHub's slugs); no doc sends the
 * reader to a folder outside the repository (a "shared/" path).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text without fenced code blocks, where a `[x](y)` is an example, not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Inline links `[text](target)` that are not URLs. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const headings = [...prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)];
  return new Set(headings.map((match) => slug(match[1] ?? '')));
}

describe('links in the docs', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Shards: `--shard i/n`')).toBe('shards---shard-in');
    expect(slug('What an outcome means')).toBe('what-an-outcome-means');
  });

  it.each(DOCS)('%s: every relative link leads to an existing file and heading', (doc) => {
    const file = path.join(ROOT, doc);
    const broken: string[] = [];
    for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
      const [target = '', anchor] = link.split('#');
      const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      if (!existsSync(resolved)) broken.push(`${link}: no such file`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
        broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s: names no path outside the repository', (doc) => {
    const text = readFileSync(path.join(ROOT, doc), 'utf8');
    expect(text).not.toMatch(/shared\//);
    expect(text).not.toMatch(/decisions\.md/);
  });

  it('links the service and the client from the README', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/service.md');
    expect(readme).toContain('](docs/client.md');
  });
});
