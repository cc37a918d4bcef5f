/**
 * Reading a manifest back: a whole file checked against the schema (for `assetline report`, and
 * for anything that reads a run it did not make), or the rows of a manifest assetline wrote, one
 * at a time, so a manifest of hundreds of megabytes is never held (report.html's gallery).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AssetlineError, EXIT } from '../errors.js';
import { type Manifest, manifestSchema } from './manifest-schema.js';

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
  if (!parsed.success) {
    const { issues } = parsed.error;
    const problems = issues.slice(0, PROBLEMS_SHOWN).map((issue) => `  ${fieldPath(issue.path)}: ${issue.message}`);
    const more = issues.length > PROBLEMS_SHOWN ? `\n  ... and ${issues.length - PROBLEMS_SHOWN} more` : '';
    throw new ManifestUnreadableError(
      `${file}: not an assetline manifest (see schemas/manifest.schema.json):\n${problems.join('\n')}${more}`,
    );
  }
  return parsed.data;
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
    for await (const line of lines) {
      if (!inRows) {
        if (line === '  "rows": []') return;
        inRows = line === '  "rows": [';
        continue;
      }
      if (line === '  ]') return;
      yield JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as Manifest['rows'][number];
    }
    throw new ManifestUnreadableError(`${file}: not a manifest as assetline writes it (no rows, or cut short)`);
  } finally {
    lines.close();
    input.destroy();
  }
}
