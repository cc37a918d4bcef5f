/**
 * A shard's file put in the merged folder without holding it: a hard link where the two folders
 * share a file system (instant, no space), a copy where they do not (streamed by the kernel).
 * Never downloaded again. A file already in place (the same file, or one of the same size whose
 * content has the manifest's sha256) is left as it is, so merging again costs next to nothing.
 * A file replaced is replaced atomically: a reader sees the old file or the new, never half.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export type Placement = 'linked' | 'copied' | 'unchanged';

/** Why a hard link may fail where a copy works: another device, a file system without links, too many. */
const COPY_INSTEAD = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/** `linkFile` is fs.link; a test passes one that fails as another device would. */
export async function placeFile(
  source: string,
  target: string,
  sha256: string,
  linkFile: (existing: string, created: string) => Promise<void> = link,
): Promise<Placement> {
  const [from, there] = await Promise.all([lstat(source), lstat(target).catch(() => undefined)]);
  if (there?.isFile()) {
    if (there.ino === from.ino && there.dev === from.dev) return 'unchanged';
    if (there.size === from.size && (await fileSha256(target)) === sha256) return 'unchanged';
  }
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}`;
  await rm(temporary, { force: true });
  let placement: Placement = 'linked';
  try {
    await linkFile(source, temporary).catch(async (error: NodeJS.ErrnoException) => {
      if (!COPY_INSTEAD.has(error.code ?? '')) throw error;
      placement = 'copied';
      await copyFile(source, temporary);
    });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return placement;
}

export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
