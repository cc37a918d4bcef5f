/**
 * One session's log: the changes one sandbox made, a JSON line each, appended with a synchronous
 * write before the answer that depends on it is sent. A killed process has written each line whole
 * or not at all as far as any client can tell: the last line may be cut short, and is then
 * skipped, since nobody was answered on it. No fsync: a killed process loses nothing without it
 * (the kernel has the write), and a sync per request would slow every answer; after a power cut
 * the last changes may be missing, and a request sent again is then done and charged again.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { type LogRecord, logRecordSchema } from './log-records.js';

export class SessionLog {
  #fd: number | undefined;
  /** Set once a write failed: nothing more is written after a line that may be partial. */
  #broken: Error | undefined;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** Create the log (it must not exist) with its first record. */
  static create(file: string, first: LogRecord): SessionLog {
    const log = new SessionLog(openSync(file, 'ax'));
    log.append(first);
    return log;
  }

  append(record: LogRecord): void {
    if (this.#broken) throw this.#broken;
    if (this.#fd === undefined) throw new Error('the sandbox has stopped: its state is no longer written');
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      for (let offset = 0; offset < bytes.length;) offset += writeSync(this.#fd, bytes, offset);
    } catch (error) {
      this.#broken = error as Error;
      throw error;
    }
  }

  /** Mark the session finished (the next start takes its log in at once) and stop writing. */
  close(at: number): void {
    if (this.#fd === undefined) return;
    try {
      if (!this.#broken) this.append({ t: 'closed', at });
    } finally {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
  }
}

/**
 * The records of a log's text. A last line without its newline that does not parse was cut short
 * by a kill, and is skipped; any other line that does not parse means the file was damaged:
 * `undefined`.
 */
export function parseLog(text: string): LogRecord[] | undefined {
  const lines = text.split('\n');
  const records: LogRecord[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const record = parseLine(line);
    if (record) records.push(record);
    // Only a line without its newline can be a write the kill cut short.
    else if (index < lines.length - 1) return undefined;
  }
  return records;
}

function parseLine(line: string): LogRecord | undefined {
  try {
    const parsed = logRecordSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
