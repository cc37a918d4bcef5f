/**
 * The run's log: pino, JSON lines to stderr (or --log-file), readable lines when stderr is a
 * terminal. Fields that could hold a key are redacted on principle, though the key is never
 * handed to the logger.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { LogLevel } from './log-levels.js';

// Required only for readable lines on a terminal: cron, CI and --log-file never load it.
const require = createRequire(import.meta.url);

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Where the lines go: stderr, or a --log-file writer. */
  readonly write: (text: string) => void;
  readonly readable: boolean;
}

const REDACT = ['key', 'apiKey', 'api_key', 'authorization', 'headers.authorization', '*.authorization', '*.key'];

export function createRunLogger(options: LoggerOptions): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      options.write(chunk.toString());
      done();
    },
  });
  const base = { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: null };
  if (!options.readable) return pino(base, sink);
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pino(
    base,
    pretty({ destination: sink, sync: true, colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname' }),
  );
}
