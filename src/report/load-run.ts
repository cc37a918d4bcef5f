/**
 * The run a report is about, from an output folder (out/<pipeline>/) or a manifest file
 * (runs/<run-id>.json): the manifest when the run finished it; the manifest brought up to date
 * from the journal when it still says "running"; the journal alone when a crash came before the
 * first manifest was written. Reads only: a report never changes a run's files.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AssetlineError, EXIT } from '../errors.js';
import { type Manifest, manifestSchema } from '../run/manifest-schema.js';
import { lockHolder } from '../run/run-lock.js';
import { applyJournal, manifestFromJournal } from './journal-manifest.js';
import { readJournalRun } from './journal-run.js';

export interface LoadedRun {
  /** The pipeline's output folder: asset paths in the manifest are relative to it. */
  readonly dir: string;
  readonly manifest: Manifest;
  readonly source: 'manifest' | 'journal' | 'manifest and journal';
  /** What a reader should know about where the numbers come from. */
  readonly notes: readonly string[];
}

export class RunUnreadableError extends AssetlineError {
  constructor(message: string) {
    super('file-unreadable', message, EXIT.usage);
    this.name = 'RunUnreadableError';
  }
}

export async function loadRun(target: string, displayTarget = target): Promise<LoadedRun> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new RunUnreadableError(`${displayTarget}: no such file or folder`);
  const manifestFile = info.isDirectory() ? path.join(target, 'manifest.json') : target;
  const parent = path.dirname(manifestFile);
  const dir = info.isDirectory() ? target : path.basename(parent) === 'runs' ? path.dirname(parent) : parent;
  const manifest = await readManifest(manifestFile);
  if (manifest && manifest.status !== 'running') return { dir, manifest, source: 'manifest', notes: [] };

  const journalText = info.isDirectory()
    ? await readFile(path.join(dir, 'journal.jsonl'), 'utf8').catch(() => undefined)
    : undefined;
  if (!manifest) {
    if (journalText === undefined)
      throw new RunUnreadableError(
        `${displayTarget}: no manifest.json and no journal.jsonl: expected an output folder such as out/<pipeline>/`,
      );
    const journal = readJournalRun(journalText);
    const holder = await lockHolder(path.join(dir, '.lock'));
    return {
      dir,
      manifest: manifestFromJournal(journal, path.basename(dir), holder?.alive === true),
      source: 'journal',
      notes: [
        holder?.alive
          ? `A run is still in progress (process ${holder.pid}, started ${holder.started_at}); this is what it has done so far.`
          : 'The run stopped before writing its manifest (killed or crashed): this report is rebuilt from its journal.',
        'Only steps the run started are listed, planned credits cover only those, and requests sent are a lower bound (polls are not journaled). Run the pipeline again to resume it.',
      ],
    };
  }

  // A manifest still saying "running": the run is going on, or it died between two writes.
  const holder = info.isDirectory() ? await lockHolder(path.join(dir, '.lock')) : undefined;
  const alive = holder?.alive === true;
  const journal = journalText === undefined ? undefined : readJournalRun(journalText);
  const notes = [
    alive
      ? `A run is still in progress (process ${holder?.pid}, started ${holder?.started_at}); this is what it has done so far.`
      : 'The run stopped without finishing its manifest (killed or crashed). Run the pipeline again to resume it.',
  ];
  if (!journal || journal.runId !== manifest.run_id) return { dir, manifest, source: 'manifest', notes };
  notes.push('Step results are brought up to date from the journal; request counts are as of the last manifest write.');
  return { dir, manifest: applyJournal(manifest, journal, alive), source: 'manifest and journal', notes };
}

async function readManifest(file: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RunUnreadableError(`${file}: cannot read: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new RunUnreadableError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((issue) => `  ${fieldPath(issue.path)}: ${issue.message}`);
    const more = parsed.error.issues.length > 10 ? `\n  ... and ${parsed.error.issues.length - 10} more` : '';
    throw new RunUnreadableError(
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
