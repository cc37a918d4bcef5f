/**
 * A shard's file put in the merged folder: linked, copied where a link cannot be made, left alone
 * when already there, replaced whole when it differs.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSha256, placeFile } from '../../src/merge/place-file.js';
import { tempDir } from '../helpers/temp-dir.js';

function source(): { file: string; target: string } {
  const dir = tempDir();
  const file = path.join(dir, 'shard', 'SKU-1', 'hero.png');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'the result\n');
  return { file, target: path.join(dir, 'merged', 'SKU-1', 'hero.png') };
}

const otherDevice = () => {
  throw Object.assign(new Error('EXDEV: cross-device link'), { code: 'EXDEV' });
};

describe('placeFile', () => {
  it('hard-links the file, and leaves it alone the next time', async () => {
    const { file, target } = source();
    const sha256 = await fileSha256(file);
    expect(await placeFile(file, target, sha256)).toBe('linked');
    expect(statSync(target).ino).toBe(statSync(file).ino);
    expect(await placeFile(file, target, sha256)).toBe('unchanged');
  });

  it('copies it where a link cannot be made (another device), and leaves an equal copy alone', async () => {
    const { file, target } = source();
    const sha256 = await fileSha256(file);
    expect(await placeFile(file, target, sha256, otherDevice)).toBe('copied');
    expect(statSync(target).ino).not.toBe(statSync(file).ino);
    expect(readFileSync(target, 'utf8')).toBe('the result\n');
    expect(await placeFile(file, target, sha256, otherDevice)).toBe('unchanged');
  });

  it('replaces a file of the same size whose content differs, leaving no temporary file', async () => {
    const { file, target } = source();
    const sha256 = await fileSha256(file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, 'the resulT\n');
    expect(await placeFile(file, target, sha256)).toBe('linked');
    expect(readFileSync(target, 'utf8')).toBe('the result\n');
    expect(readdirSync(path.dirname(target))).toEqual(['hero.png']);
  });

  it('fails on what a copy would not fix, leaving nothing behind', async () => {
    const { file, target } = source();
    const denied = () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    };
    await expect(placeFile(file, target, 'x', denied)).rejects.toThrow('EACCES');
    // Not even the folder: a link is tried before the folder is made.
    expect(existsSync(path.dirname(target))).toBe(false);
    expect(await fileSha256(file)).toBe(createHash('sha256').update('the result\n').digest('hex'));
  });
});
