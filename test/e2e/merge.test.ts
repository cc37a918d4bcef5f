/**
 * `assetline merge a b c d --out X` on the built CLI, as a CI job runs it after a matrix: exit
 * codes, messages, and the --json object.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeShards } from '../helpers/shard-folders.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

function assetline(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('assetline merge (built)', () => {
  it('merges four artifacts: exit 0, and the same manifest when run again', async () => {
    const root = tempDir();
    await writeShards(root, 4, 5);
    const args = ['merge', 'artifact-1', 'artifact-2', 'artifact-3', 'artifact-4', '--out', 'X', '--json'];
    const first = assetline(root, ...args);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const json = JSON.parse(first.stdout) as { status: string; rows: number; manifest: string; files: object };
    expect(json).toMatchObject({ status: 'complete', rows: 20, manifest: path.join(root, 'X/shoes/manifest.json') });
    expect(json.files).toMatchObject({ linked: 40, copied: 0, unchanged: 0 });
    const manifest = readFileSync(json.manifest, 'utf8');
    const again = assetline(root, ...args);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: { linked: 0, unchanged: 40 } });
    const withoutTime = (text: string) => text.replace(/"merged_at": "[^"]+"/, '');
    expect(withoutTime(readFileSync(json.manifest, 'utf8'))).toBe(withoutTime(manifest));
  });

  it('refuses missing shards (exit 2, naming them) and merges them with --allow-missing (exit 4)', async () => {
    const root = tempDir();
    await writeShards(root, 4, 1);
    const refused = assetline(root, 'merge', 'artifact-1', 'artifact-3', '--out', 'X');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^assetline: merge: missing shards: 2-of-4, 4-of-4 \(found 1-of-4 in /);
    expect(existsSync(path.join(root, 'X'))).toBe(false);
    const allowed = assetline(root, 'merge', 'artifact-1', 'artifact-3', '--out', 'X', '--allow-missing');
    expect(allowed.code).toBe(4);
    expect(allowed.stdout).toMatch(/^shoes: stopped \(exit 4\): shards are missing \(2-of-4, 4-of-4\)/);
  });

  it('says what is wrong with a folder that is not a shard, and with the command', () => {
    const root = tempDir();
    expect(assetline(root, 'merge', '.', '--out', 'X')).toMatchObject({
      code: 2,
      stderr:
        'assetline: merge: .: not an output folder: no manifest.json in it, and no shard folders (<pipeline>/shards/<i>-of-<n>/) under it\n',
    });
    expect(assetline(root, 'merge', '.')).toMatchObject({ code: 2 });
    expect(assetline(root, 'merge', '--help')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Usage: assetline merge/) as string,
    });
  });
});
