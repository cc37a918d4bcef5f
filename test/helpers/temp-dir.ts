/**
 * Fresh temp folders, removed after each test file (test/setup.ts). Apart from the pipeline
 * helpers so the setup every test file loads imports nothing of the product.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A fresh folder, removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'assetline-test-'));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
