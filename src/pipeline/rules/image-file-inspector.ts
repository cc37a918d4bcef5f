/**
 * Checks a local image file once (exists, is a file, size, type by magic bytes) and remembers the
 * answer, so 100,000 rows that share a logo cost one look at the disk.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { SNIFF_BYTES, sniffImage } from '../../media/sniff-image.js';

export type FileInspection =
  | { readonly ok: true; readonly bytes: number; readonly mediaType: string | undefined }
  | { readonly ok: false; readonly reason: string };

export class ImageFileInspector {
  readonly #cache = new Map<string, FileInspection>();

  inspect(absolutePath: string): FileInspection {
    let result = this.#cache.get(absolutePath);
    if (!result) {
      result = inspectFile(absolutePath);
      this.#cache.set(absolutePath, result);
    }
    return result;
  }
}

function inspectFile(absolutePath: string): FileInspection {
  try {
    const stats = statSync(absolutePath);
    if (!stats.isFile()) return { ok: false, reason: 'is not a file' };
    const head = new Uint8Array(SNIFF_BYTES);
    const fd = openSync(absolutePath, 'r');
    try {
      readSync(fd, head, 0, SNIFF_BYTES, 0);
    } finally {
      closeSync(fd);
    }
    return { ok: true, bytes: stats.size, mediaType: sniffImage(head) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'does not exist' };
    return { ok: false, reason: `cannot be read (${code ?? String(error)})` };
  }
}
