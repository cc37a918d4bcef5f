/**
 * The files a row's steps list, where each is relative to an output folder, checked before
 * anything is read or written: a manifest comes from a downloaded artifact, and a path in it must
 * not lead out of the folder it is read from or the one it is merged into.
 *
 * The runner writes every file of a row as `<row folder>/<file>` (output-layout.ts), the folder a
 * safe name: that, exactly, is what is taken. Results a redo replaced are kept under
 * `runs/<run that saved them>/<row folder>/<file>`.
 */
import { OutputLayout } from '../run/output-layout.js';
import { safeSegment } from '../paths/safe-segment.js';
import type { ManifestRowEntry } from '../manifest/manifest-schema.js';
import { MergeRefusedError } from './merge-refused.js';

export interface RowFile {
  /** Where it is in the shard folder, and goes in the merged one: relative, `/`-separated. */
  readonly relative: string;
  readonly bytes: number;
  readonly sha256: string;
  /**
   * A result or a paid extra must be there; an earlier result a redo replaced is copied when it
   * is (an artifact may leave runs/ out).
   */
  readonly required: boolean;
}

/** A name the runner could have made: one segment, not hidden, nothing a path could read as more. */
function isPlainName(name: string): boolean {
  return name !== '' && !name.startsWith('.') && !/[/\\\0]/.test(name);
}

export function rowFiles(row: ManifestRowEntry, where: string): RowFile[] {
  if (!isPlainName(row.folder))
    throw new MergeRefusedError(
      `${where}: row ${JSON.stringify(row.key)}: folder ${JSON.stringify(row.folder)} is not a folder name; refusing a manifest that could write elsewhere`,
    );
  const files: RowFile[] = [];
  for (const step of row.steps) {
    const checked = (file: { path: string }) => {
      const [folder, name, ...more] = file.path.split('/');
      if (folder !== row.folder || name === undefined || !isPlainName(name) || more.length > 0)
        throw new MergeRefusedError(
          `${where}: row ${JSON.stringify(row.key)}, step ${JSON.stringify(step.step)}: file path ${JSON.stringify(file.path)} is not <row folder>/<file>; refusing a manifest that could lead outside its folder`,
        );
      return file.path;
    };
    for (const file of [...step.files, ...step.extra_files])
      files.push({ relative: checked(file), bytes: file.bytes, sha256: file.sha256, required: true });
    for (const file of step.replaced_files ?? [])
      files.push({
        relative: `runs/${safeSegment(file.run_id ?? 'earlier')}/${checked(file)}`,
        bytes: file.bytes,
        sha256: file.sha256,
        required: false,
      });
  }
  return files;
}

/** An output folder's file at `relative`, refused if it would be anywhere else (the last guard). */
export function fileIn(dir: string, relative: string): string {
  const layout = new OutputLayout(dir, '.');
  try {
    return layout.absolute(relative);
  } catch {
    throw new MergeRefusedError(`${relative}: leads outside ${dir}`);
  }
}
