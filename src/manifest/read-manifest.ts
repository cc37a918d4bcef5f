/**
 * Reading a manifest back: a whole file checked against the schema (for `assetline report`, and
 * for anything that reads a run it did not make), or the rows of a manifest assetline wrote, one
 * at a time, so a manifest of hundreds of megabytes is never held (report.html's gallery).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AssetlineError, EXIT } from '../errors.js';
import { type Manifest, type ManifestHead, manifestSchema } from './manifest-schema.js';

/** What the schema says about a manifest at most, so a broken file does not flood the terminal. */
const PROBLEMS_SHOWN = 10;

export class ManifestUnreadableError extends AssetlineError {
  constructor(message: string) {
    super('file-unreadable', message, EXIT.usage);
    this.name = 'ManifestUnreadableError';
  }
}

/** The manifest in `file`, checked against the schema; undefined when there is no such file. */
export async function readManifest(file: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ManifestUnreadableError(`${file}: cannot read: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ManifestUnreadableError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) throw notAManifest(file, parsed.error.issues);
  return parsed.data;
}

/** The error for a file the schema refuses, with its first problems. */
export function notAManifest(
  file: string,
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): ManifestUnreadableError {
  const problems = issues.slice(0, PROBLEMS_SHOWN).map((issue) => `  ${fieldPath(issue.path)}: ${issue.message}`);
  const more = issues.length > PROBLEMS_SHOWN ? `\n  ... and ${issues.length - PROBLEMS_SHOWN} more` : '';
  return new ManifestUnreadableError(
    `${file}: not an assetline manifest (see schemas/manifest.schema.json):\n${problems.join('\n')}${more}`,
  );
}

/**
 * The head of a manifest (everything but its rows), checked against the schema, read without
 * reading a single row: a merge looks at every shard's head before it reads any rows. Undefined
 * when the file is not laid out as assetline writes it (manifest-json.ts); readManifest reads
 * such a file whole.
 */
export async function readManifestHead(file: string): Promise<ManifestHead | undefined> {
  const input = createReadStream(file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  const head: string[] = [];
  let rowsOpened = false;
  try {
    for await (const line of lines) {
      if (head.length === 0 && line !== '{') return undefined;
      // A row on one line, as assetline writes it; pretty-printed JSON opens it on a line alone.
      if (rowsOpened) return line.startsWith('    {"') ? checkedHead(file, head) : undefined;
      if (line === '  "rows": []') return checkedHead(file, head);
      if (line === '  "rows": [') rowsOpened = true;
      else head.push(line);
    }
    return undefined;
  } catch (error) {
    if (error instanceof ManifestUnreadableError) throw error;
    throw new ManifestUnreadableError(`${file}: cannot read: ${(error as Error).message}`);
  } finally {
    lines.close();
    input.destroy();
  }
}

/** The head's lines as a manifest without rows, checked; undefined when they are not JSON. */
function checkedHead(file: string, head: readonly string[]): ManifestHead | undefined {
  let data: unknown;
  try {
    data = JSON.parse(`${head.join('\n')}\n  "rows": []\n}`);
  } catch {
    return undefined;
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) throw notAManifest(file, parsed.error.issues);
  return withoutRows(parsed.data);
}

function withoutRows(manifest: Manifest): ManifestHead {
  const head: Partial<Manifest> = { ...manifest };
  delete head.rows;
  return head as ManifestHead;
}

/** ['rows', 3, 'steps', 0, 'status'] as rows[3].steps[0].status */
function fieldPath(segments: readonly PropertyKey[]): string {
  if (segments.length === 0) return '(top level)';
  return segments
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/**
 * The rows of a manifest assetline wrote (manifest-json.ts: each row one line after the line that
 * opens `rows`), in order, read as they are asked for: stopping early reads no further. Not
 * checked against the schema: for manifests this program has just written.
 */
export async function* readManifestRows(file: string): AsyncGenerator<Manifest['rows'][number]> {
  const input = createReadStream(file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    let inRows = false;
    let index = 0;
    for await (const line of lines) {
      if (!inRows) {
        if (line === '  "rows": []') return;
        inRows = line === '  "rows": [';
        continue;
      }
      if (line === '  ]') return;
      yield rowOf(file, line, index++);
    }
    throw new ManifestUnreadableError(`${file}: not a manifest as assetline writes it (no rows, or cut short)`);
  } finally {
    lines.close();
    input.destroy();
  }
}

/** One row's line; a line that is not one (a damaged or hand-edited file) names the file and row. */
function rowOf(file: string, line: string, index: number): Manifest['rows'][number] {
  try {
    return JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as Manifest['rows'][number];
  } catch (error) {
    throw new ManifestUnreadableError(
      `${file}: rows[${index}] is not a manifest row as assetline writes it (${(error as Error).message})`,
    );
  }
}
