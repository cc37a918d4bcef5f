/**
 * The layout reads as the design only while its parts depend on each other one way: the runner
 * never on the report (the `run` command joins them), the API client never on the runner, and
 * the sandbox (sharp, libvips, an HTTP server) loaded only by what serves it, never by the
 * library. Checked on the import statements of src/, read as text.
 */
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, type Imports, reachable } from './import-graph.js';

const graph = importGraph();

const loaded = (imports: Imports) => [...imports.static, ...imports.dynamic];

/** The files under `from` (a folder of src/, with its slash) that import anything under `to`. */
function importers(from: string, to: string, kind: (imports: Imports) => readonly string[] = loaded): string[] {
  return [...graph]
    .filter(([file, imports]) => file.startsWith(from) && kind(imports).some((target) => target.startsWith(to)))
    .map(([file]) => file);
}

describe('the import graph of src/', () => {
  it('is read whole: every relative import names a file of src/', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      loaded(imports)
        .filter((target) => !graph.has(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has the runner never import the report, nor the API client the runner', () => {
    expect(importers('run/', 'report/')).toEqual([]);
    expect(importers('api/', 'run/')).toEqual([]);
  });

  it('loads the sandbox only from its command and its entry, and lazily through its loader', () => {
    const outside = (files: string[]) => files.filter((file) => !file.startsWith('sandbox/')).sort();
    expect(outside(importers('', 'sandbox/', (imports) => imports.static))).toEqual([
      'commands/sandbox.ts',
      'sandbox-entry.ts',
    ]);
    // The loader checks the optional packages first; `run --sandbox`, run({ sandbox: true }), the
    // command and the entry all go through it.
    expect(outside(importers('', 'sandbox/', (imports) => imports.dynamic))).toEqual(['sandbox-loader.ts']);
  });

  it('keeps the sandbox out of the library: index.ts loads none of it, only run({ sandbox: true }) may', () => {
    const reached = [...reachable(graph, 'index.ts')];
    expect(reached.filter((file) => file.startsWith('sandbox/'))).toEqual([]);
    const lazily = [...reachable(graph, 'index.ts', true)].filter((file) => file.startsWith('sandbox/'));
    expect(lazily).toContain('sandbox/sandbox.ts');
    const viaLoader = reachable(graph, 'sandbox-loader.ts', true);
    expect(lazily.every((file) => viaLoader.has(file))).toBe(true);
    expect(reached.length).toBeGreaterThan(10);
  });

  it('has no import cycle anywhere in src/, type-only imports included', () => {
    expect(cycles(graph, [...graph.keys()])).toEqual([]);
  });

  it('has no import cycle inside the sandbox: its handlers take SandboxState, not the server', () => {
    const sandbox = [...graph.keys()].filter((file) => file.startsWith('sandbox/'));
    expect(cycles(graph, sandbox)).toEqual([]);
  });
});
