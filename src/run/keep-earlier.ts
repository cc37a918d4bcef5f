/**
 * Before a redo is sent, the result it replaces leaves its place so the new one can take it: each
 * file is linked (copied where links fail) to runs/<id of the run that saved it>/<its path>, that
 * place is journaled as the instance's result, and only then is the file removed from its place.
 * At every point a crash leaves the result where the journal says (or at both places), so a run
 * without --redo afterwards still reuses it, without paying.
 */
import { copyFile, link, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { JournalFile, JournalRecord } from './journal-records.js';
import { applyRecord, type Journal, type JournalState } from './journal.js';
import type { OutputLayout } from './output-layout.js';

export interface KeepContext {
  readonly layout: OutputLayout;
  readonly journal: Journal;
  readonly state: JournalState;
  readonly now: () => number;
}

/** Keeps the instance's current result out of the way; returns the files as kept (none: it had none). */
export async function keepEarlier(context: KeepContext, key: string): Promise<JournalFile[]> {
  const earlier = context.state.instances.get(key)?.downloaded;
  if (!earlier) return [];
  const { layout } = context;
  const kept: JournalFile[] = [];
  const moved: string[] = [];
  for (const file of earlier.files) {
    const source = layout.absolute(file.path);
    // Kept already (a crash after this was journaled): it stays where it is.
    if (isKept(file.path)) {
      if ((await sizeOf(source)) === file.bytes) kept.push(file);
      continue;
    }
    const target = await keptPlace(layout.kept(file.run_id, file.path), file.bytes);
    if ((await sizeOf(target)) !== file.bytes) {
      // The result's own file gone (deleted by hand): nothing of it to keep.
      if ((await sizeOf(source)) !== file.bytes) continue;
      await mkdir(path.dirname(target), { recursive: true });
      await link(source, target).catch(() => copyFile(source, target));
    }
    kept.push({ ...file, path: layout.relative(target) });
    moved.push(source);
  }
  if (kept.length === 0) return [];
  const record: JournalRecord = {
    type: 'downloaded',
    t: context.now(),
    key,
    fingerprint: earlier.fingerprint,
    files: kept,
  };
  await context.journal.append(record);
  applyRecord(context.state, record);
  for (const file of moved) await rm(file, { force: true });
  return kept;
}

function isKept(relative: string): boolean {
  return relative.startsWith('runs/');
}

/** `target`, or beside it when a different file is there already (two results saved by one run). */
async function keptPlace(target: string, bytes: number): Promise<string> {
  const { dir, name, ext } = path.parse(target);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? target : path.join(dir, `${name}~${n}${ext}`);
    const size = await sizeOf(candidate);
    if (size === undefined || size === bytes) return candidate;
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  return stat(file).then(
    (info) => info.size,
    () => undefined,
  );
}
