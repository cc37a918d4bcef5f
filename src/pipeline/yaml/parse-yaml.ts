/**
 * Parse a YAML text keeping positions, refusing duplicate keys and alias bombs. Returns either the
 * document with its plain data, or the problems that stopped parsing; it never throws on bad input.
 */
import { parseDocument } from 'yaml';
import type { Problem } from '../problem.js';
import { type AliasExpansion, checkAliasExpansion, MAX_ALIAS_EXPANSION } from './alias-expansion.js';
import { LineIndex } from './line-index.js';
import { findTooDeep, MAX_NESTING_DEPTH } from './nesting-depth.js';
import { YamlLocator } from './yaml-locator.js';

export interface ParsedYaml {
  readonly data: unknown;
  readonly locator: YamlLocator;
}

export type ParseYamlResult =
  | { readonly ok: true; readonly value: ParsedYaml; readonly warnings: readonly Problem[] }
  | { readonly ok: false; readonly problems: readonly Problem[] };

export function parseYaml(file: string, text: string): ParseYamlResult {
  const tooDeep = findTooDeep(text);
  if (tooDeep) {
    const location = { file, ...new LineIndex(text).position(tooDeep.offset) };
    return {
      ok: false,
      problems: [
        {
          severity: 'error',
          code: 'yaml-too-deep',
          message: `the YAML nests more than ${MAX_NESTING_DEPTH} levels of mappings and lists here; flatten it`,
          location,
        },
      ],
    };
  }
  const doc = parseDocument(text, { uniqueKeys: true, merge: true, prettyErrors: false });
  const locator = new YamlLocator(file, doc, text);

  // yaml reports a too-deep line twice; the multi-line report is the one we can explain.
  const multiline = new Set(doc.errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const errors = doc.errors.filter((e) => !(e.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(e.pos[0])));
  const problems = firstSyntaxErrors(
    uniqueProblems(errors.map((error) => yamlDiagnostic(locator, text, error, 'error'))),
  );
  const warnings = doc.warnings.map((warning) => yamlDiagnostic(locator, text, warning, 'warning'));
  if (problems.length > 0) return { ok: false, problems: [...problems, ...warnings] };

  if (doc.contents === null) {
    return {
      ok: false,
      problems: [{ severity: 'error', code: 'yaml-empty', message: 'the file is empty', location: locator.start() }],
    };
  }

  const expansion = checkAliasExpansion(doc);
  if (expansion.offender) return { ok: false, problems: [aliasProblem(locator, expansion)] };
  try {
    // Our own check above limits what matters (the expanded size); yaml's counts alias uses,
    // which refuses a long sheet that reuses one anchor on every row.
    const data: unknown = doc.toJS({ maxAliasCount: -1 });
    return { ok: true, value: { data, locator }, warnings };
  } catch (error) {
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

/**
 * One stray character can make the parser reject every token after it. Those follow-on errors are
 * not separate problems; a few show the pattern, the rest are counted.
 */
export const MAX_SYNTAX_ERRORS = 5;

/** The same explanation at the same place once (yaml may say one thing twice, in two wordings). */
function uniqueProblems(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${JSON.stringify(problem.location)} ${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function firstSyntaxErrors(problems: Problem[]): Problem[] {
  if (problems.length <= MAX_SYNTAX_ERRORS) return problems;
  const [first] = problems;
  const more = problems.length - MAX_SYNTAX_ERRORS;
  return [
    ...problems.slice(0, MAX_SYNTAX_ERRORS),
    { ...(first as Problem), message: `${more} more YAML syntax errors not shown (usually caused by the first one)` },
  ];
}

function yamlDiagnostic(
  locator: YamlLocator,
  text: string,
  error: { code: string; message: string; pos: readonly [number, number] },
  severity: 'error' | 'warning',
): Problem {
  const { message, offset } = explainYaml(text, error);
  return {
    severity,
    code: `yaml-${error.code.toLowerCase().replaceAll('_', '-')}`,
    message,
    location: locator.at(offset),
  };
}

/** yaml's wording, rephrased where it speaks of its own API or hides the real cause. */
function explainYaml(
  text: string,
  error: { code: string; message: string; pos: readonly [number, number] },
): { message: string; offset: number } {
  const [start, end] = error.pos;
  switch (error.code) {
    case 'DUPLICATE_KEY': {
      const key = /^\s*("[^"]*"|'[^']*'|[^:#\n]+?)\s*:/.exec(
        text.slice(start, text.indexOf('\n', start) + 1 || undefined),
      )?.[1];
      return {
        message: `duplicate key${key ? ` ${key.startsWith('"') || key.startsWith("'") ? key : `"${key}"`}` : ''}: a key may appear only once in a mapping`,
        offset: start,
      };
    }
    case 'MULTIPLE_DOCS':
      return {
        message: 'a pipeline file holds one YAML document; a second one starts here (after "---")',
        offset: start,
      };
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      // A line indented deeper than its sibling keys continues the value above it.
      const newline = text.indexOf('\n', start);
      if (newline !== -1 && newline < end) {
        const next = newline + 1 + (/^[ \t]*/.exec(text.slice(newline + 1))?.[0].length ?? 0);
        return {
          message:
            'this line is indented deeper than the key above it, so YAML reads it as part of that value; indent it like its sibling keys',
          offset: next,
        };
      }
      return { message: firstLine(error.message), offset: start };
    }
    default:
      return { message: firstLine(error.message), offset: start };
  }
}

/** yaml's messages end with " at line L, column C:" and a code excerpt; we print the position ourselves. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

function aliasProblem(locator: YamlLocator, expansion: AliasExpansion): Problem {
  const offset = expansion.offender?.range?.[0] ?? 0;
  const message = expansion.cyclic
    ? 'this alias refers to a node that contains it, so it never ends'
    : `aliases expand this document by more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} nodes (an "alias bomb": anchors nesting aliases of aliases); expand them by hand or nest fewer`;
  return { severity: 'error', code: 'yaml-alias-limit', message, location: locator.at(offset) };
}
