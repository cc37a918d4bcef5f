/**
 * Finished results by fingerprint, newest last: what the content-addressed cache can reuse. A run
 * of 300,000 steps adds as many, and looks one up only when two steps do the same work, so each is
 * kept as one short string (a JSON array, without field names or the fingerprint it is filed
 * under) rather than as objects: a fifth of the memory.
 */
import type { JournalFile, JournalRecord } from './journal-records.js';

export type DownloadedRecord = Extract<JournalRecord, { type: 'downloaded' }>;

type PackedFile = [
  path: string,
  index: number,
  sha256: string,
  bytes: number,
  mediaType: string,
  url: string,
  width?: number | null,
  height?: number | null,
  durationSeconds?: number | null,
  runId?: string | null,
];
type Packed = [key: string, t: number, files: PackedFile[]];

export class ResultIndex {
  readonly #packed = new Map<string, string>();

  get size(): number {
    return this.#packed.size;
  }

  get(fingerprint: string): DownloadedRecord | undefined {
    const packed = this.#packed.get(fingerprint);
    return packed === undefined ? undefined : unpack(fingerprint, packed);
  }

  /** Remember a result, as the newest for its fingerprint. */
  set(record: DownloadedRecord): void {
    this.#packed.delete(record.fingerprint);
    this.#packed.set(record.fingerprint, pack(record));
  }

  /** Every result, oldest first. */
  *records(): Generator<DownloadedRecord> {
    for (const [fingerprint, packed] of this.#packed) yield unpack(fingerprint, packed);
  }

  fingerprints(): IterableIterator<string> {
    return this.#packed.keys();
  }
}

function pack(record: DownloadedRecord): string {
  const files = record.files.map((f): PackedFile => {
    const file: PackedFile = [f.path, f.index, f.sha256, f.bytes, f.media_type, f.url];
    if (f.width !== undefined || f.height !== undefined || f.duration_seconds !== undefined || f.run_id !== undefined)
      file.push(f.width ?? null, f.height ?? null, f.duration_seconds ?? null);
    if (f.run_id !== undefined) file.push(f.run_id);
    return file;
  });
  return JSON.stringify([record.key, record.t, files] satisfies Packed);
}

function unpack(fingerprint: string, packed: string): DownloadedRecord {
  const [key, t, files] = JSON.parse(packed) as Packed;
  return {
    type: 'downloaded',
    t,
    key,
    fingerprint,
    files: files.map(([path, index, sha256, bytes, mediaType, url, width, height, durationSeconds, runId]) => {
      const file: JournalFile = { path, index, sha256, bytes, media_type: mediaType, url };
      return {
        ...file,
        ...(width != null && { width }),
        ...(height != null && { height }),
        ...(durationSeconds != null && { duration_seconds: durationSeconds }),
        ...(runId != null && { run_id: runId }),
      };
    }),
  };
}
