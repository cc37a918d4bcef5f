/**
 * `assetline merge` as the command line runs it, in-process: what it prints, its exit codes, and
 * the one job summary it leaves under GitHub Actions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CommandIo } from '../../src/cli/io.js';
import { merge } from '../../src/library/merge.js';
import { writeShards } from '../helpers/shard-folders.js';
import { tempDir } from '../helpers/temp-dir.js';

async function assetline(argv: readonly string[], cwd: string, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd,
    env,
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

async function fourShards(): Promise<string> {
  const root = tempDir();
  await writeShards(root, 4, 2);
  return root;
}

const ALL = ['artifact-1', 'artifact-2', 'artifact-3', 'artifact-4'];

describe('assetline merge', () => {
  it('prints the merged report and where its files are; exit 0', async () => {
    const root = await fourShards();
    const { code, stdout, stderr } = await assetline(['merge', ...ALL, '--out', 'merged'], root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^shoes: complete \(exit 0\): every step is done\n/);
    expect(stdout).toMatch(/\n {2}note: +Merged from 4 shards: 1-of-4 complete \(run /);
    expect(stdout).toContain(
      '\nmanifest merged/shoes/manifest.json\nreport   merged/shoes/report.html\nassets   merged/shoes/assets.csv\n',
    );
  });

  it('prints with --json what merge() returns', async () => {
    const root = await fourShards();
    const { code, stdout } = await assetline(['merge', ...ALL, '--out', 'a', '--json'], root);
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as Record<string, unknown>;
    const returned = await merge(ALL, { out: 'b', cwd: root });
    const where = (folder: string) => ({
      folder: path.join(root, folder, 'shoes'),
      manifest: path.join(root, folder, 'shoes', 'manifest.json'),
      assets: path.join(root, folder, 'shoes', 'assets.csv'),
      report: path.join(root, folder, 'shoes', 'report.html'),
    });
    expect(printed).toEqual({ ...returned, ...where('a') });
    expect(returned).toMatchObject(where('b'));
    expect(Object.keys(printed)).toEqual([
      'pipeline',
      'run_id',
      'status',
      'stopped_by',
      'exit_code',
      'folder',
      'manifest',
      'assets',
      'report',
      'merged_from',
      'missing_shards',
      'rows',
      'steps',
      'credits',
      'requests',
      'files',
      'notes',
    ]);
  });

  it('refuses missing shards with exit 2, naming them; merges them with --allow-missing, exit 4', async () => {
    const root = await fourShards();
    const refused = await assetline(['merge', 'artifact-1', 'artifact-3', '--out', 'merged'], root);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "assetline: merge: missing shards: 2-of-4, 4-of-4 (found 1-of-4 in artifact-1/shoes/shards/1-of-4, 3-of-4 in artifact-3/shoes/shards/3-of-4); give every shard's folder, or pass --allow-missing to merge what is there\n",
    });
    const summary = path.join(root, 'summary.md');
    writeFileSync(summary, '');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const allowed = await assetline(
      ['merge', 'artifact-1', 'artifact-3', '--out', 'merged', '--allow-missing'],
      root,
      env,
    );
    expect(allowed.code).toBe(4);
    expect(allowed.stdout).toMatch(
      /^shoes: stopped \(exit 4\): shards are missing \(2-of-4, 4-of-4\); run them, then merge again\n/,
    );
    expect(allowed.stderr).toBe(
      '::warning title=assetline%3A shoes%3A shards missing::Merged without 2-of-4, 4-of-4: their rows are not in the merged folder. Run them, then merge again.\n',
    );
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown).toMatch(/^## assetline: shoes: stopped \(exit 4\)\n/);
    expect(markdown).toContain('> Missing shards: 2-of-4, 4-of-4.');
    // One job summary for the whole merge.
    expect(markdown.match(/^## /gm)).toHaveLength(1);
  });

  it('says how to use it: --help, no folders, no --out', async () => {
    const root = tempDir();
    const help = await assetline(['merge', '--help'], root);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: assetline merge <dir>\.\.\. --out DIR \[--allow-missing\] \[--json\]\n/);
    expect(await assetline(['merge', '--out', 'x'], root)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^assetline: merge: expected the shards' output folders\n/) as string,
    });
    expect(await assetline(['merge', 'a'], root)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'assetline: merge: --out DIR is required: the merged folder is DIR/<pipeline>/\n',
    });
    expect((await assetline(['--help'], root)).stdout).toContain(
      '  merge <dir>... --out DIR               combine the shards of one run into DIR/<pipeline>/\n',
    );
  });
});
