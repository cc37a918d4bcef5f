/**
 * The cron example: what a user copying it relies on. The wrapper is run with bash against a fake
 * assetline and a fake mailer. The GitHub Actions examples: github-workflows.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRAPPER = path.join(ROOT, 'examples/cron/assetline-nightly.sh');
const KEY = 'sk-test-do-not-print-7f3a9c';

const hasBash = spawnSync('bash', ['--version']).status === 0;
const onPath = (command: string): boolean => spawnSync('bash', ['-c', `command -v ${command}`]).status === 0;

// A stand-in for assetline: prints to stdout and stderr, appends a JSON line to --log-file, exits
// with FAKE_EXIT, and answers `report ... --md` with fixed Markdown. Each call is recorded in
// FAKE_CALLS with whether the key reached it (never the key itself).
const FAKE_ASSETLINE = `#!/usr/bin/env bash
printf '%s key=%s\\n' "$*" "\${ASSETLINE_API_KEY:+set}" >>"$FAKE_CALLS"
if [ "$1" = report ]; then
  printf '# Report: catalog\\n\\n| step | status |\\n|---|---|\\n| hero | deferred (quota) |\\n'
  exit "\${FAKE_REPORT_EXIT:-0}"
fi
log=
while [ $# -gt 0 ]; do
  if [ "$1" = --log-file ]; then log=$2; shift; fi
  shift
done
echo 'fake assetline: running on stdout'
if [ -n "\${FAKE_SUMMARY:-}" ]; then echo "$FAKE_SUMMARY"; fi
echo 'fake assetline: a warning on stderr' >&2
echo '{"level":30,"msg":"fake json log line"}' >>"$log"
if [ -n "\${FAKE_STARTED:-}" ]; then
  trap 'echo "fake assetline: journal flushed"; exit 143' TERM
  touch "$FAKE_STARTED"
  sleep 30 &
  wait $!
fi
exit "\${FAKE_EXIT:-0}"
`;

// A stand-in for mail and sendmail: records its arguments, one a line, then what it read.
const FAKE_MAILER = `#!/usr/bin/env bash
{ printf 'arg: %s\\n' "$@"; echo '---'; cat; } >"$MAIL_RECORD"
`;

describe.skipIf(!hasBash)(
  `examples/cron/assetline-nightly.sh${hasBash ? '' : ' (skipped: bash is not installed)'}`,
  () => {
    let root = '';

    afterEach(() => {
      if (root) fs.rmSync(root, { recursive: true, force: true });
      root = '';
    });

    /** A project folder, a fake assetline and fake mailers in a fresh temp folder. */
    function setup(mailers: string[] = ['mail']) {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'assetline-cron-'));
      const project = path.join(root, 'project');
      const bin = path.join(root, 'bin');
      fs.mkdirSync(path.join(project, 'pipelines'), { recursive: true });
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(project, 'pipelines/catalog.yaml'), 'version: 1\nname: catalog\n');
      fs.writeFileSync(path.join(root, 'fake-assetline'), FAKE_ASSETLINE, { mode: 0o755 });
      for (const mailer of mailers) fs.writeFileSync(path.join(bin, mailer), FAKE_MAILER, { mode: 0o755 });
      const env: Record<string, string> = {
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: root,
        ASSETLINE_PROJECT_DIR: project,
        ASSETLINE_PIPELINE: 'pipelines/catalog.yaml',
        ASSETLINE_BIN: path.join(root, 'fake-assetline'),
        ASSETLINE_MAIL_TO: 'content-team@example.com',
        ASSETLINE_API_KEY: KEY,
        FAKE_CALLS: path.join(root, 'calls.txt'),
        MAIL_RECORD: path.join(root, 'mail.txt'),
      };
      const logDir = path.join(project, 'logs');
      const logs = (): string[] => (fs.existsSync(logDir) ? fs.readdirSync(logDir).sort() : []);
      const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
      return {
        project,
        env,
        logDir,
        logs,
        newLog: () =>
          read(
            path.join(
              logDir,
              logs().find((name) => /^assetline-\d{4}-\d\d-\d\dT\d{6}\.log$/.test(name))!,
            ),
          ),
        mail: () => read(env.MAIL_RECORD!),
        calls: () => read(env.FAKE_CALLS!),
        run: (extra: Record<string, string> = {}) => {
          const result = spawnSync('bash', [WRAPPER], { cwd: root, env: { ...env, ...extra }, encoding: 'utf8' });
          return { code: result.status, stdout: result.stdout, stderr: result.stderr };
        },
      };
    }

    it('is executable and passes bash -n', () => {
      expect(fs.statSync(WRAPPER).mode & 0o111).not.toBe(0);
      expect(spawnSync('bash', ['-n', WRAPPER]).status).toBe(0);
    });

    it('exit 0: writes a dated log with the output and the --log-file lines, prints nothing, mails nobody', () => {
      const t = setup();
      const { code, stdout, stderr } = t.run({ FAKE_EXIT: '0' });
      expect(code).toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toBe('');
      expect(t.logs()).toHaveLength(1);
      const log = t.newLog();
      expect(log).toContain('fake assetline: running on stdout');
      expect(log).toContain('fake assetline: a warning on stderr');
      expect(log).toContain('{"level":30,"msg":"fake json log line"}');
      expect(log).toContain('exit code 0 (done)');
      expect(t.calls()).toMatch(
        /^run pipelines\/catalog\.yaml --out out --json --log-file \S+\/logs\/assetline-\S+\.log key=set$/m,
      );
      expect(t.mail()).toBe('');
    });

    it('exit 4: mails the exit code, what to do, the Markdown report and the log tail, and exits 4', () => {
      const t = setup();
      const { code, stderr } = t.run({ FAKE_EXIT: '4' });
      expect(code).toBe(4);
      expect(stderr).toBe('');
      const mail = t.mail();
      const [args, body] = mail.split('\n---\n');
      expect(args).toMatch(
        /^arg: -s\narg: assetline: catalog exited 4 \(stopped by credits, quota or budget; resumable\) on .+\narg: content-team@example\.com$/,
      );
      expect(body).toContain('the next run continues where this one stopped');
      expect(body).toContain('# Report: catalog\n\n| step | status |\n|---|---|\n| hero | deferred (quota) |');
      expect(body).toContain('## The last 50 lines of the log');
      expect(body).toContain('fake assetline: running on stdout');
      expect(body).toContain('{"level":30,"msg":"fake json log line"}');
      // The report is asked for the pipeline's folder in out/, without the key.
      expect(t.calls()).toMatch(/^report out\/catalog --md key=$/m);
    });

    it.each([
      [1, 'some steps failed'],
      [2, 'the output folder is locked by another run'],
      [3, 'refused by the plan'],
      [5, 'API key refused'],
      [70, 'internal error (a bug)'],
      [130, 'interrupted; resumable'],
      [143, 'interrupted; resumable'],
    ])('exit %i: the subject says "%s" and the wrapper exits with it', (exitCode, meaning) => {
      const t = setup();
      expect(t.run({ FAKE_EXIT: String(exitCode) }).code).toBe(exitCode);
      expect(t.mail()).toMatch(
        new RegExp(`^arg: assetline: catalog exited ${exitCode} \\(.*${meaning.replace(/[()]/g, '\\$&')}`, 'm'),
      );
    });

    it('never writes the API key to the log, the mail or its own output', () => {
      const t = setup();
      const { stdout, stderr } = t.run({ FAKE_EXIT: '5' });
      expect(t.mail()).toContain('exited 5');
      for (const text of [t.newLog(), t.mail(), stdout, stderr]) expect(text).not.toContain(KEY);
    });

    it('deletes logs older than ASSETLINE_LOG_KEEP_DAYS and keeps recent ones and other files', () => {
      const t = setup();
      fs.mkdirSync(t.logDir);
      const day = 24 * 60 * 60;
      const now = Date.now() / 1000;
      const age = (name: string, days: number) => {
        fs.writeFileSync(path.join(t.logDir, name), 'old\n');
        fs.utimesSync(path.join(t.logDir, name), now - days * day, now - days * day);
      };
      age('assetline-2020-01-01T023000.log', 8);
      age('assetline-2020-01-05T023000.log', 6);
      age('notes.txt', 100);
      expect(t.run({ ASSETLINE_LOG_KEEP_DAYS: '7' }).code).toBe(0);
      const logs = t.logs();
      expect(logs).not.toContain('assetline-2020-01-01T023000.log');
      expect(logs).toContain('assetline-2020-01-05T023000.log');
      expect(logs).toContain('notes.txt');
      expect(logs).toHaveLength(3);
    });

    it('keeps 30 days of logs by default', () => {
      const t = setup();
      fs.mkdirSync(t.logDir);
      const now = Date.now() / 1000;
      for (const [name, days] of [
        ['assetline-old.log', 31],
        ['assetline-recent.log', 29],
      ] as const) {
        fs.writeFileSync(path.join(t.logDir, name), '');
        fs.utimesSync(path.join(t.logDir, name), now - days * 86_400, now - days * 86_400);
      }
      t.run();
      expect(t.logs()).not.toContain('assetline-old.log');
      expect(t.logs()).toContain('assetline-recent.log');
    });

    it('takes the output folder and the pipeline name from ASSETLINE_OUT_DIR and ASSETLINE_PIPELINE_NAME', () => {
      const t = setup();
      t.run({ FAKE_EXIT: '1', ASSETLINE_OUT_DIR: 'build', ASSETLINE_PIPELINE_NAME: 'spring-shoes' });
      expect(t.calls()).toMatch(/^run pipelines\/catalog\.yaml --out build /m);
      expect(t.calls()).toMatch(/^report build\/spring-shoes --md /m);
      expect(t.mail()).toContain('arg: assetline: spring-shoes exited 1');
    });

    it('reports on the folder of the manifest the run names in its --json summary', () => {
      const t = setup();
      const summary = '{"status":"partial","exit_code":1,"manifest":"/srv/catalog/out/spring shoes/manifest.json"}';
      expect(t.run({ FAKE_EXIT: '1', FAKE_SUMMARY: summary }).code).toBe(1);
      expect(t.calls()).toMatch(/^report \/srv\/catalog\/out\/spring shoes --md /m);
      expect(t.newLog()).toContain(summary);
    });

    it('still mails when the report cannot be made', () => {
      const t = setup();
      expect(t.run({ FAKE_EXIT: '2', FAKE_REPORT_EXIT: '2' }).code).toBe(2);
      expect(t.mail()).toContain('(no report: `assetline report out/catalog --md` exited 2');
      expect(t.mail()).toContain('fake assetline: running on stdout');
    });

    it.skipIf(onPath('mail'))('falls back to sendmail -t with To and Subject headers', () => {
      const t = setup(['sendmail']);
      expect(t.run({ FAKE_EXIT: '4' }).code).toBe(4);
      const [args, message] = t.mail().split('\n---\n');
      expect(args).toBe('arg: -t');
      expect(message).toMatch(/^To: content-team@example\.com\nSubject: assetline: catalog exited 4 /);
      expect(message).toContain('# Report: catalog');
    });

    it.skipIf(onPath('mail') || onPath('sendmail') || fs.existsSync('/usr/sbin/sendmail'))(
      'warns on stderr when there is no mailer, and still exits with the code',
      () => {
        const t = setup([]);
        const { code, stderr } = t.run({ FAKE_EXIT: '3' });
        expect(code).toBe(3);
        expect(stderr).toContain('neither mail nor sendmail was found');
        expect(stderr).toContain('catalog exited 3');
        expect(stderr).not.toContain(KEY);
      },
    );

    it('on SIGTERM to its process group, waits for assetline to flush, then mails and exits 143', async () => {
      const t = setup();
      const started = path.join(root, 'started');
      const child = spawn('bash', [WRAPPER], {
        cwd: root,
        env: { ...t.env, FAKE_STARTED: started },
        detached: true,
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        for (let i = 0; i < 200 && !fs.existsSync(started); i++) await new Promise((r) => setTimeout(r, 25));
        expect(fs.existsSync(started)).toBe(true);
        process.kill(-child.pid!, 'SIGTERM');
        expect(await exited).toBe(143);
      } finally {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      }
      expect(t.newLog()).toContain('fake assetline: journal flushed');
      expect(t.mail()).toMatch(/^arg: assetline: catalog exited 143 \(interrupted; resumable\)/m);
    });
  },
);
