/**
 * File-system errors, told apart from network ones: a result that could not be written is not a
 * failed request (the answer is kept and downloaded again), and a full or read-only disk is a
 * reason to stop starting work, not a bug.
 */

/** errno codes of writing files, folders and the journal. */
const STORAGE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'ENOTDIR',
  'EISDIR',
  'EEXIST',
  'ENOENT',
  'EIO',
  'EFBIG',
  'EMFILE',
  'ENFILE',
  'ENAMETOOLONG',
]);

/** Codes that will hit every later write too: the run stops starting work. */
const WHOLE_DISK = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/** The errno code of a file-system error, or undefined for anything else. */
export function storageCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORAGE_CODES.has(code) ? code : undefined;
}

export function affectsWholeDisk(code: string): boolean {
  return WHOLE_DISK.has(code);
}

/** One line for a person: what could not be written, and why. */
export function describeStorageError(error: unknown): string {
  const { code, path, syscall } = error as { code?: string; path?: string; syscall?: string };
  const why: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is spent',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EISDIR: 'the path is a folder',
    EIO: 'an input/output error',
  };
  const what = path ? ` ${path}` : '';
  return `could not ${syscall ?? 'write'}${what}: ${(code && why[code]) ?? code ?? String(error)}`;
}
