/**
 * The manifest as JSON text, made piece by piece from its head and its rows, so a manifest of
 * hundreds of megabytes is never one string. The head (everything before `rows`, totals included)
 * is pretty-printed as before; each row is one compact line. JSON.parse reads the same object.
 */
import type { ManifestHead, ManifestStep } from './manifest-schema.js';

/** A row as `rows` writes it: its key, its folder, in a merged manifest its shard, and its steps. */
export interface RowOfSteps {
  readonly key: string;
  readonly folder: string;
  readonly shard?: string | undefined;
  readonly steps: readonly ManifestStep[];
}

/** Distinct blank steps remembered at most (a pipeline has few steps, models and reasons). */
const BLANK_CACHE_SIZE = 4096;

/**
 * The manifest from its head and its rows: first those read back from a file as they come (as
 * lines, or as bytes already separated the way `rows` writes them, `count` rows), then `more`.
 */
export async function* manifestTextOf(
  head: ManifestHead,
  first:
    { readonly lines: AsyncIterable<string> } | { readonly bytes: AsyncIterable<Uint8Array>; readonly count: number },
  more: Iterable<string>,
): AsyncGenerator<string | Uint8Array> {
  yield manifestTop(head);
  let none = true;
  const separator = () => {
    const text = none ? '\n    ' : ',\n    ';
    none = false;
    return text;
  };
  if ('bytes' in first) {
    yield* first.bytes;
    if (first.count > 0) none = false;
  } else {
    for await (const line of first.lines) yield `${separator()}${line}`;
  }
  for (const line of more) yield `${separator()}${line}`;
  yield none ? ']\n}\n' : '\n  ]\n}\n';
}

/** The head pretty-printed, without its closing brace, opening the rows. */
function manifestTop(head: ManifestHead): string {
  const top = JSON.stringify(head, null, 2);
  return `${top.slice(0, top.lastIndexOf('\n}'))},\n  "rows": [`;
}

/** A row as one compact line; `blank` remembers the text of steps that have nothing of their own. */
export function rowLine(row: RowOfSteps, blank: Map<string, string> = new Map()): string {
  const steps = row.steps.map((step) => stepJson(step, blank)).join(',');
  const shard = row.shard === undefined ? '' : `,"shard":${JSON.stringify(row.shard)}`;
  return `{"key":${JSON.stringify(row.key)},"folder":${JSON.stringify(row.folder)}${shard},"steps":[${steps}]}`;
}

/**
 * A step as JSON. Steps never started (most of a big run stopped early) differ only in a few
 * fields: each distinct one is stringified once and its text reused.
 */
function stepJson(step: ManifestStep, blank: Map<string, string>): string {
  const key = blankKey(step);
  if (key === undefined) return JSON.stringify(step);
  let text = blank.get(key);
  if (text === undefined) {
    if (blank.size >= BLANK_CACHE_SIZE) blank.clear();
    text = JSON.stringify(step);
    blank.set(key, text);
  }
  return text;
}

/** What tells two blank steps apart, or undefined for a step with anything of its own. */
function blankKey(step: ManifestStep): string | undefined {
  if (
    step.attempts !== 0 ||
    step.request_id !== null ||
    step.request_ids.length > 0 ||
    step.polls !== 0 ||
    step.ambiguous_attempts !== 0 ||
    step.files.length > 0 ||
    step.extra_files.length > 0 ||
    step.error !== null ||
    step.started_at !== null ||
    step.finished_at !== null ||
    step.duration_ms !== null ||
    step.losses?.length !== 0
  )
    return undefined;
  const { credits } = step;
  const model = step.model === null ? '\u0001' : step.model;
  const reason = step.reason === null ? '\u0001' : step.reason;
  return `${step.step}\0${step.operation}\0${model}\0${step.status}\0${reason}\0${credits.planned}\0${credits.used}\0${credits.paid_total}\0${credits.lost}`;
}
