/**
 * A shard's file put in the merged folder without holding it: a hard link where the two folders
 * share a file system (instant, no space), a copy where they do not (streamed by the kernel).
 * Never downloaded again. A file already in place (the same file, or one of the same size whose
 * content has the manifest's sha256) is left as it is, so merging again costs next to nothing.
 * A file replaced is replaced atomically: a reader sees the old file or the new, never half.
 */
import { createHash } from 'node:crypto';
import { createReadStream, linkSync, lstatSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';

export type Placement = 'linked' | 'copied' | 'unchanged';

/** Why a hard link may fail where a copy works: another device, a file system without links, too many. */
const COPY_INSTEAD = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/**
 * Puts `source` at `target`. The calls on names (lstat, link, rename) are synchronous: each takes
 * microseconds on a local disk, and through the thread pool ten times that, which at 30,000 files
 * was most of a merge. Copying and hashing, which read whole files, stay asynchronous.
 * `linkFile` is fs.linkSync; a test passes one that fails as another device would.
 */
export async function placeFile(
  source: string,
  target: string,
  sha256: string,
  linkFile: (existing: string, created: string) => void = linkSync,
): Promise<Placement> {
  const there = lstatSync(target, { throwIfNoEntry: false });
  if (there?.isFile()) {
    const from = lstatSync(source);
    if (there.ino === from.ino && there.dev === from.dev) return 'unchanged';
    if (there.size === from.size && (await fileSha256(target)) === sha256) return 'unchanged';
  }
  // Nothing there: a link made at the target's name appears whole, at once. Otherwise, and for a
  // copy (which takes time to write), the file is made beside it and renamed over it.
  const direct = there ? 'taken' : tryLink(() => linkFile(source, target), target);
  if (direct === 'done') return 'linked';
  const temporary = `${target}.tmp-${process.pid}`;
  try {
    let placement: Exclude<Placement, 'unchanged'> = 'linked';
    if (direct === 'copy' || tryLink(() => linkFile(source, temporary), temporary, true) === 'copy') {
      placement = 'copied';
      await copyFile(source, temporary);
    }
    renameSync(temporary, target);
    return placement;
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * A link, tried again once in a folder made now (the row's first file: no mkdir for every file);
 * `copy` when only a copy will do, `taken` when the name is. A temporary file a merge that died
 * left (`stale`) is removed and the link tried again.
 */
function tryLink(makeLink: () => void, created: string, stale = false): 'done' | 'copy' | 'taken' {
  for (let attempt = 0; ; attempt++) {
    try {
      makeLink();
      return 'done';
    } catch (error) {
      const code = codeOf(error);
      if (COPY_INSTEAD.has(code)) {
        mkdirSync(path.dirname(created), { recursive: true });
        return 'copy';
      }
      if (code === 'EEXIST' && !stale) return 'taken';
      if (attempt > 0) throw error;
      if (code === 'ENOENT') mkdirSync(path.dirname(created), { recursive: true });
      else if (code === 'EEXIST') rmSync(created, { force: true });
      else throw error;
    }
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
