/**
 * Write a file whole or not at all: into a temporary file beside it, then renamed over it. A
 * process killed at any moment leaves the old file or the new one, never a part of either (a
 * leftover temporary file is tidied away at the next start).
 */
import { open, rename, writeFile } from 'node:fs/promises';

/**
 * `durable`: also fsync before the rename, so a power cut cannot leave an empty file under the
 * name (state.json, once a start). Result files skip it: a killed process loses nothing without
 * it, and a sync per result would slow every answer.
 */
export async function writeAtomically(file: string, data: string | Uint8Array, durable = false): Promise<void> {
  const temporary = `${file}.tmp`;
  if (durable) {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } else {
    await writeFile(temporary, data);
  }
  await rename(temporary, file);
}
