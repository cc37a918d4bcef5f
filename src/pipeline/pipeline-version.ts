/**
 * A pipeline's version: what identifies its definition, so the output folders of the shards of one
 * pipeline can be told to come from the same one (`assetline merge` refuses folders of different
 * versions). The first 16 hex digits of the SHA-256 of the pipeline file's text, and of its rows
 * file's text when it has one. Line endings are read as `\n` and a byte-order mark is dropped
 * first: the same checkout on Windows (git's autocrlf) and on Linux is the same version.
 */
import { createHash } from 'node:crypto';

export function pipelineVersion(pipelineText: string, rowsText?: string): string {
  const hash = createHash('sha256').update(normalised(pipelineText), 'utf8');
  // A separator no text holds: the pipeline and its rows never run into each other.
  if (rowsText !== undefined) hash.update('\u0000rows\u0000', 'utf8').update(normalised(rowsText), 'utf8');
  return hash.digest('hex').slice(0, 16);
}

function normalised(text: string): string {
  return (text.startsWith('\uFEFF') ? text.slice(1) : text).replace(/\r\n?/g, '\n');
}
