/**
 * A run killed with SIGKILL is reported (from manifest and journal, or the journal alone) and
 * resumed; a second run on the same folder is refused with the holder named.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalOfLatestRun, report, startRun, until, useSandboxProcess, workspace } from '../helpers/e2e-run.js';
import { assertPublishedManifestFile } from '../helpers/manifest-validator.js';

useSandboxProcess();

describe('assetline run', () => {
  it('a run killed with SIGKILL is reported from its manifest and journal, or from the journal alone', async () => {
    const dir = workspace('reported', 6);
    const { child, done } = startRun(dir);
    // Killed once a manifest says "running" and the journal holds a download the manifest may not.
    await until(
      () =>
        existsSync(path.join(dir, 'out/reported/manifest.json')) &&
        (journalOfLatestRun(dir, 'reported').get('downloaded') ?? 0) >= 2,
      'a running manifest and two downloads',
    );
    child.kill('SIGKILL');
    await done;
    const out = path.join(dir, 'out/reported');
    const left = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { status: string };
    expect(left.status).toBe('running');
    assertPublishedManifestFile(path.join(out, 'manifest.json'));
    const downloaded = new Set(
      readFileSync(path.join(out, 'journal.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"type":"downloaded"'))
        .map((line) => (JSON.parse(line) as { key: string }).key),
    );

    const text = report(dir, 'out/reported');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('reported: interrupted: interrupted; the next run resumes where it stopped');
    expect(text.stdout).toContain('The run stopped without finishing its manifest (killed or crashed)');
    expect(text.stdout).toMatch(new RegExp(`steps: +${downloaded.size} done, 0 cached`));
    expect(report(dir, 'out/reported', '--md').stdout).toMatch(/^## assetline: reported: interrupted\n/);
    const html = report(dir, 'out/reported', '--html');
    expect(html.stdout).toBe(`${path.join('out', 'reported', 'report.html')}\n`);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('<section id="gallery">');

    rmSync(path.join(out, 'manifest.json'));
    const rebuilt = report(dir, 'out/reported');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toContain('rebuilt from its journal');
    expect(rebuilt.stdout).toMatch(new RegExp(`steps: +${downloaded.size} done, 0 cached`));

    const resumed = await startRun(dir, ['--json']).done;
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'complete' });
    expect(report(dir, 'out/reported').stdout).toContain('reported: complete (exit 0): every step is done');
  });
  it('refuses a second run on the same folder (exit 2), naming the first', async () => {
    const dir = workspace('locked', 10);
    const first = startRun(dir);
    await until(() => existsSync(path.join(dir, 'out/locked/.lock')), 'the first run to take the lock');
    const second = await startRun(dir).done;
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another run is using .*: process \d+ on .*, started /);
    expect((await first.done).code).toBe(0);
  });
});
