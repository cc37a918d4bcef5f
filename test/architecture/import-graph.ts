/**
 * The import graph of src/, from the import and export statements of each file (plain reads and
 * regular expressions: no compiler, so the architecture tests stay fast). Type-only imports count:
 * they are dependencies of the design even when the build erases them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SRC = path.resolve(import.meta.dirname, '../../src');

export interface Imports {
  /** `import ... from`, `export ... from` and `import '...'`: loaded with the file. */
  readonly static: readonly string[];
  /** `import('...')`: loaded when the code runs. */
  readonly dynamic: readonly string[];
}

const FROM = /^\s*(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT = /^\s*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Each file of src/ (relative, e.g. `run/scheduler.ts`) with the files of src/ it imports. */
export function importGraph(): ReadonlyMap<string, Imports> {
  const graph = new Map<string, Imports>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  for (const file of files.map((f) => f.split(path.sep).join('/'))) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const local = (pattern: RegExp) =>
      [...text.matchAll(pattern)].flatMap((match) => {
        const target = resolve(file, match[1] as string);
        return target ? [target] : [];
      });
    graph.set(file, { static: [...local(FROM), ...local(SIDE_EFFECT)], dynamic: local(DYNAMIC) });
  }
  return graph;
}

/** A relative specifier as a file of src/; undefined for packages and node: modules. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path.posix.join(path.posix.dirname(from), specifier).replace(/\.js$/, '.ts');
}

/** Every file `start` loads, directly or through others (static imports; dynamic ones too if asked). */
export function reachable(graph: ReadonlyMap<string, Imports>, start: string, dynamic = false): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const imports = graph.get(file);
    if (!imports) return;
    for (const next of dynamic ? [...imports.static, ...imports.dynamic] : imports.static) {
      if (seen.has(next)) continue;
      seen.add(next);
      visit(next);
    }
  };
  visit(start);
  return seen;
}

/** The import cycles among `files` (static imports), each as the files around it. */
export function cycles(graph: ReadonlyMap<string, Imports>, files: readonly string[]): string[][] {
  const inside = new Set(files);
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file)?.static ?? []) {
      if (!inside.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}
