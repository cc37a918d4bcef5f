/**
 * The result files the sandbox hands out as URLs (`/files/<id>.<ext>`). Each is recorded with how
 * to make it and rendered on its first download, so API calls stay fast; it answers 410 Gone once
 * its retention has passed on the sandbox clock, and 404 when unknown.
 */
export type MediaType = 'image/png' | 'audio/mpeg' | 'video/mp4';

export interface StoredFile {
  readonly id: string;
  readonly mediaType: MediaType;
  readonly createdAt: number;
  /** Makes the bytes; called once, on the first download or use as an input. Dropped on expiry. */
  render: (() => Promise<Uint8Array>) | undefined;
  bytes?: Promise<Uint8Array> | undefined;
}

/** Every this many new files, expired ones let go of their bytes (they still answer 410). */
const SWEEP_EVERY = 1000;

export const EXTENSIONS: Readonly<Record<MediaType, string>> = {
  'image/png': 'png',
  'audio/mpeg': 'mp3',
  'video/mp4': 'mp4',
};

/** The path a file is served at. */
export function filePath(id: string, mediaType: MediaType): string {
  return `/files/${id}.${EXTENSIONS[mediaType]}`;
}

export class FileStore {
  readonly #files = new Map<string, StoredFile>();
  readonly #retentionMs: number;
  #added = 0;
  #onAdd: ((file: StoredFile) => void) | undefined;

  constructor(retentionMs: number) {
    this.#retentionMs = retentionMs;
  }

  get retentionMs(): number {
    return this.#retentionMs;
  }

  add(file: Omit<StoredFile, 'bytes' | 'render'> & { render: () => Promise<Uint8Array> }): string {
    const stored: StoredFile = { ...file };
    this.#files.set(file.id, stored);
    if (++this.#added % SWEEP_EVERY === 0) this.#sweep(file.createdAt);
    this.#onAdd?.(stored);
    return filePath(file.id, file.mediaType);
  }

  /** Told of every new file: a sandbox that keeps its state saves it (persist/). */
  observe(listener: (file: StoredFile) => void): void {
    this.#onAdd = listener;
  }

  /**
   * A file an earlier sandbox of the same state made (persist/): its bytes are read back on its
   * first download; `render` is undefined for one whose bytes are gone (it answers 410).
   */
  restore(file: StoredFile): void {
    this.#files.set(file.id, file);
  }

  /** A long-running sandbox would otherwise keep every result (and every edit's source) forever. */
  #sweep(now: number): void {
    for (const file of this.#files.values()) {
      if (now < file.createdAt + this.#retentionMs) continue;
      file.render = undefined;
      file.bytes = undefined;
    }
  }

  /** The file behind a `/files/...` path: found, expired, or unknown. */
  lookup(pathname: string, now: number): { file: StoredFile; expired: boolean } | undefined {
    const match = /^\/files\/([\w-]+)\.(png|mp3|mp4)$/.exec(pathname);
    const file = match?.[1] ? this.#files.get(match[1]) : undefined;
    if (!file || EXTENSIONS[file.mediaType] !== match?.[2]) return undefined;
    return { file, expired: now >= file.createdAt + this.#retentionMs };
  }

  bytes(file: StoredFile): Promise<Uint8Array> {
    if (!file.bytes) {
      if (!file.render) throw new Error(`file ${file.id} has expired`);
      file.bytes = file.render();
    }
    return file.bytes;
  }
}
