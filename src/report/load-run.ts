/**
 * The run a report is about, from an output folder (out/<pipeline>/) or a manifest file
 * (runs/<run-id>.json): the manifest when the run finished it; the manifest brought up to date
 * from the journal when it still says "running"; the journal alone when a crash came before the
 * first manifest was written. Reads only: a report never changes a run's files.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AssetlineError, EXIT } from '../errors.js';
import type { Manifest } from '../manifest/manifest-schema.js';
import { readManifest } from '../manifest/read-manifest.js';
import { type LockInfo, lockHolder } from '../run/run-lock.js';
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
  // A kept runs/<run-id>.json is written once, at the end of its run: final as it is.
  if (manifest && !info.isDirectory()) return { dir, manifest, source: 'manifest', notes: [] };

  const journalText = await readFile(path.join(dir, 'journal.jsonl'), 'utf8').catch(() => undefined);
  const journal = journalText === undefined ? undefined : readJournalRun(journalText);
  // A run that died before its first manifest write leaves the one of the run before it.
  const newer =
    journal?.runId !== undefined &&
    journal.runId !== manifest?.run_id &&
    (manifest === undefined || (journal.startedAt ?? 0) > Date.parse(manifest.started_at));
  if (manifest && !newer) {
    if (manifest.status !== 'running') return { dir, manifest, source: 'manifest', notes: [] };
    // Still "running": the run is going on, or it died between two manifest writes.
    const holder = await lockHolder(path.join(dir, '.lock'));
    const alive = holder?.alive === true;
    const notes = [
      alive
        ? inProgress(holder)
        : 'The run stopped without finishing its manifest (killed or crashed). Run the pipeline again to resume it.',
    ];
    if (journal?.runId !== manifest.run_id) return { dir, manifest, source: 'manifest', notes };
    notes.push(
      'Step results are brought up to date from the journal; request counts are as of the last manifest write.',
    );
    return { dir, manifest: applyJournal(manifest, journal, alive), source: 'manifest and journal', notes };
  }

  if (!journal)
    throw new RunUnreadableError(
      `${displayTarget}: no manifest.json and no journal.jsonl: expected an output folder such as out/<pipeline>/`,
    );
  const holder = await lockHolder(path.join(dir, '.lock'));
  const alive = holder?.alive === true;
  return {
    dir,
    manifest: manifestFromJournal(journal, path.basename(dir), alive),
    source: 'journal',
    notes: [
      alive
        ? inProgress(holder)
        : 'The run stopped before writing its manifest (killed or crashed): this report is rebuilt from its journal.',
      'Only steps the run started are listed, planned credits cover only those, and requests sent are a lower bound (polls are not journaled). Run the pipeline again to resume it.',
      ...(manifest ? [`manifest.json there is of the run before, ${manifest.run_id} (${manifest.status}).`] : []),
    ],
  };
}

function inProgress(holder: LockInfo | undefined): string {
  return `A run is still in progress (process ${holder?.pid}, started ${holder?.started_at}); this is what it has done so far.`;
}
