/**
 * Parse a YAML text keeping positions, refusing duplicate keys and alias bombs. Returns either the
 * document with its plain data, or the problems that stopped parsing; it never throws on bad input.
 */
import { type Document, isAlias, LineCounter, parseDocument, visit } from 'yaml';
import type { Problem } from '../problem.js';
import { YamlLocator } from './yaml-locator.js';

/**
 * How many alias expansions a document may make. yaml's own default (100) is what we keep: a
 * pipeline needs a handful of anchors, an alias bomb needs millions.
 */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  readonly data: unknown;
  readonly locator: YamlLocator;
}

export type ParseYamlResult =
  | { readonly ok: true; readonly value: ParsedYaml; readonly warnings: readonly Problem[] }
  | { readonly ok: false; readonly problems: readonly Problem[] };

export function parseYaml(file: string, text: string): ParseYamlResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false });
  const locator = new YamlLocator(file, doc, lineCounter);

  const problems = doc.errors.map((error) => yamlDiagnostic(locator, error.code, error.message, error.pos, 'error'));
  const warnings = doc.warnings.map((warning) =>
    yamlDiagnostic(locator, warning.code, warning.message, warning.pos, 'warning'),
  );
  if (problems.length > 0) return { ok: false, problems: [...problems, ...warnings] };

  if (doc.contents === null) {
    return {
      ok: false,
      problems: [{ severity: 'error', code: 'yaml-empty', message: 'the file is empty', location: locator.start() }],
    };
  }

  try {
    const data: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { ok: true, value: { data, locator }, warnings };
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      return { ok: false, problems: [aliasBomb(locator, doc)] };
    }
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'yaml-syntax',
          message: `cannot read YAML: ${String(error)}`,
          location: locator.start(),
        },
      ],
    };
  }
}

function yamlDiagnostic(
  locator: YamlLocator,
  code: string,
  message: string,
  pos: readonly [number, number],
  severity: 'error' | 'warning',
): Problem {
  const text = code === 'DUPLICATE_KEY' ? 'duplicate key: a key may appear only once in a mapping' : firstLine(message);
  return {
    severity,
    code: `yaml-${code.toLowerCase().replaceAll('_', '-')}`,
    message: text,
    location: locator.at(pos[0]),
  };
}

/** yaml's messages end with " at line L, column C:" and a code excerpt; we print the position ourselves. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

function aliasBomb(locator: YamlLocator, doc: Document.Parsed): Problem {
  let offset = 0;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.range) offset = node.range[0];
      return visit.BREAK;
    },
  });
  return {
    severity: 'error',
    code: 'yaml-alias-limit',
    message: `too many alias expansions (more than ${MAX_ALIAS_COUNT}): the aliases nest into an exponentially large document (an "alias bomb"); expand them by hand or use fewer`,
    location: locator.at(offset),
  };
}
