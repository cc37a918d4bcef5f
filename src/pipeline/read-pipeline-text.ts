/**
 * Read a pipeline file as text: refuse a file over the size limit before reading it, and refuse
 * bytes that are not UTF-8, naming the line. Returns the text or the problem; never throws.
 */
import { open } from 'node:fs/promises';
import { decodeUtf8, hexByte } from './encoding/strict-utf8.js';
import type { Problem } from './problem.js';

/**
 * The largest pipeline file read, in bytes (5 MiB). Parsing YAML keeps about 70 times the text in
 * memory (a 50 MB file of 565,000 inline rows needs 3.4 GB); many rows belong in a rows file.
 */
export const MAX_PIPELINE_BYTES = 5 * 1024 * 1024;

export type PipelineText =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: Problem };

export async function readPipelineText(filePath: string, file: string): Promise<PipelineText> {
  let bytes: Uint8Array;
  try {
    const handle = await open(filePath, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_PIPELINE_BYTES) return { ok: false, problem: pipelineTooLarge(file, size) };
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ok: false, problem: unreadable(file, error) };
  }
  const decoded = decodeUtf8(bytes);
  if (decoded.ok) return { ok: true, text: decoded.text };
  return {
    ok: false,
    problem: {
      severity: 'error',
      code: 'file-encoding',
      message: `the pipeline is not UTF-8: byte ${hexByte(decoded.byte)} here is not valid UTF-8; save the file as UTF-8`,
      location: { file, line: decoded.line, col: decoded.col },
    },
  };
}

/** The problem for a pipeline of `size` bytes, over MAX_PIPELINE_BYTES. */
export function pipelineTooLarge(file: string, size: number): Problem {
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return {
    severity: 'error',
    code: 'file-too-large',
    message:
      `the pipeline is ${mb(size)} (${size.toLocaleString('en-US')} bytes); a pipeline file may be at most ` +
      `${mb(MAX_PIPELINE_BYTES)} (${MAX_PIPELINE_BYTES.toLocaleString('en-US')} bytes). Put many rows in a rows file: ` +
      'rows: { file: rows.csv } reads 100,000 rows in under a second',
    location: { file },
  };
}

function unreadable(file: string, error: unknown): Problem {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a folder, not a file'
        : String((error as Error).message);
  return {
    severity: 'error',
    code: 'file-unreadable',
    message: `cannot read the pipeline: ${reason}`,
    location: { file },
  };
}
