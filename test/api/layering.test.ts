/**
 * The API layer stands below the pipeline and the runner: it has its own request and settings
 * types, and imports only the service's facts (catalog), media sniffing and the error catalogue.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const API = path.resolve(import.meta.dirname, '../../src/api');
const ALLOWED = ['../catalog/', '../media/', '../errors.js'];

describe('src/api', () => {
  it('imports nothing from the pipeline, the runner or the commands', () => {
    const outside = readdirSync(API)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(path.join(API, file), 'utf8').matchAll(/from '(\.\.\/[^']+)'/g)].map(
          (match) => `${file}: ${match[1]}`,
        ),
      )
      .filter((line) => !ALLOWED.some((allowed) => line.split(': ')[1]?.startsWith(allowed)));
    expect(outside).toEqual([]);
  });
});
