/** The Markdown report: what a cron mail and a GitHub job summary show, kept stable by a snapshot. */
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/manifest/manifest-summary.js';
import { reportMarkdown } from '../../src/report/report-markdown.js';
import { reportText } from '../../src/report/report-text.js';
import { fixtureManifest, fixtureStep, png } from '../helpers/manifest-fixture.js';

describe('reportMarkdown', () => {
  it('matches the snapshot: headline, totals, failures first, then the cost tables', async () => {
    await expect(reportMarkdown(summarize(fixtureManifest()))).toMatchFileSnapshot('__snapshots__/report.md');
  });

  it('keeps spreadsheet text from breaking tables or injecting HTML', () => {
    const markdown = reportMarkdown(summarize(fixtureManifest()));
    const failure = markdown.split('\n').find((line) => line.includes('invalid_scale'));
    expect(failure).toBe(
      '| WALK\\|&lt;2&gt; | big | upscale | invalid_scale (HTTP 400) | scale must be 2 or 4 \\| got &lt;5&gt; |',
    );
    expect(markdown).not.toContain('<2>');
  });

  it('cuts long lists and says how many more there are', () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({
      key: `R${i}`,
      folder: `R${i}`,
      steps: [
        fixtureStep({
          step: 'hero',
          status: 'failed',
          credits: { planned: 100, used: 0 },
          error: { kind: 'permanent', status: 422, code: 'content_policy', message: 'refused', request_id: null },
        }),
      ],
    }));
    const markdown = reportMarkdown(summarize(fixtureManifest(rows)));
    expect(markdown).toContain('### Failed (120)');
    expect(markdown).toContain('... and 70 more: see report.html or the manifest.');
    expect(markdown).toContain('By row (120, the 50 costliest shown)');
    expect(markdown.split('\n').filter((line) => /^\| R\d/.test(line)).length).toBe(100);
  });
});

describe('reportText', () => {
  it('says what happened, what it cost against the plan, and what needs attention', () => {
    const text = reportText(summarize(fixtureManifest()), ['a note']);
    expect(text).toContain('spring-shoes: partial (exit 1): some steps failed; the next run sends them again');
    const figures = text.split('\n').map((line) => line.replace(/:\s+/, ': '));
    expect(figures).toEqual(
      expect.arrayContaining([
        '  note: a note',
        '  steps: 2 done, 1 cached, 1 failed, 1 skipped, 1 deferred',
        '  credits: 200 used of ~600 planned',
        '  cached: 1 step reused, 100 credits saved',
        '  requests: 6 sent of ~5 planned: submits 5 of 5, polls 0 of ~0, 0 other; 1 retry',
        '  unanswered: 1 step sent again after no answer (1 attempt): may have been charged twice',
        '  quota: pro: 894 of 1,000 requests left (106 used in the last 24 h)',
      ]),
    );
    expect(text).toContain('failed (1):\n  WALK|<2> / big: invalid_scale (HTTP 400): scale must be 2 or 4 | got <5>');
    expect(text).toContain(
      'may have been charged twice (1): sent again after no answer:\n  RUN-1 / big: 1 unanswered attempt, request req_2',
    );
    expect(text).toContain('not run:\n  1 deferred: budget\n  1 skipped: upstream-deferred');
  });

  it('lists the costliest rows first and cuts the table at ten', () => {
    const rows = Array.from({ length: 15 }, (_, i) => ({
      key: `R${i}`,
      folder: `R${i}`,
      steps: [
        fixtureStep({
          step: 'hero',
          status: 'done',
          credits: { planned: 100 * i, used: 100 * i },
          files: [png(`R${i}/hero.png`)],
        }),
      ],
    }));
    const text = reportText(summarize(fixtureManifest(rows)));
    expect(text).toContain('by row (the 10 costliest of 15)');
    const rowLines = text.split('\n').filter((line) => /^ {2}R\d+ /.test(line));
    expect(rowLines.map((line) => line.trim().split(/\s+/)[0])).toEqual([
      'R14',
      'R13',
      'R12',
      'R11',
      'R10',
      'R9',
      'R8',
      'R7',
      'R6',
      'R5',
    ]);
  });
});
