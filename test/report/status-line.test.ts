/**
 * The status line says what stopped the run and what to do, by `stopped_by`; the headline figures
 * never contradict themselves when nothing reached the service.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/manifest-schema.js';
import { summarize } from '../../src/manifest/manifest-summary.js';
import { headlineFigures, statusLine } from '../../src/report/summary-text.js';
import { fixtureManifest } from '../helpers/manifest-fixture.js';

function stopped(stoppedBy: string | null): Manifest {
  return { ...fixtureManifest(), status: 'stopped', stopped_by: stoppedBy, exit_code: 4 };
}

describe('statusLine of a stopped run', () => {
  it.each([
    ['credits', 'stopped because the credits ran out (402): buy credits, then run again to resume'],
    ['quota', 'stopped because the daily request quota is spent (429): run again later to resume'],
    [
      'auth',
      'stopped because the service refused the API key (401): check ASSETLINE_API_KEY, then run again to resume',
    ],
    ['storage', 'stopped because results or the journal could not be written: free the disk, then run again to resume'],
    [
      'unreachable',
      'stopped because https://api.example.com could not be reached: run again when it answers to resume',
    ],
    ['internal', 'stopped by an internal error (a bug): what is journaled is kept; the next run resumes'],
  ])('stopped_by %s', (stoppedBy, line) => {
    expect(statusLine(stopped(stoppedBy))).toBe(line);
  });

  it('--fit deferrals (stopped_by null) keep their own line', () => {
    expect(statusLine(stopped(null))).toBe(
      'rows that did not fit the quota left or the budget were deferred; the next run goes on with them',
    );
  });

  it('missing shards keep theirs', () => {
    expect(statusLine({ ...stopped('missing-shards'), missing_shards: ['2/4'] })).toBe(
      'shards are missing (2/4); run them, then merge again',
    );
  });

  it('a reason it does not know is still a resumable stop', () => {
    expect(statusLine(stopped('something-new'))).toBe('stopped early; the next run resumes');
  });

  it('never names a generic list of causes', () => {
    for (const by of ['credits', 'quota', 'auth', 'storage', 'unreachable', 'internal'])
      expect(statusLine(stopped(by))).not.toContain('credits, quota, budget or key');
  });
});

describe('headline figures when nothing reached the service', () => {
  const figure = (manifest: Manifest, label: string) =>
    headlineFigures(summarize(manifest)).find(([name]) => name === label)?.[1];

  it('says no request reached it, not that every request was answered', () => {
    const base = fixtureManifest();
    // No step was sent again after no answer: nothing reached the service at all.
    const rows = base.rows.map((row) => ({
      ...row,
      steps: row.steps.map((step) => ({ ...step, ambiguous_attempts: 0 })),
    }));
    const manifest: Manifest = {
      ...base,
      rows,
      totals: {
        ...base.totals,
        requests: { ...base.totals.requests, sent: 0, submits: 0, polls: 0, other: 0, retries: 6, ambiguous: 0 },
      },
    };
    expect(figure(manifest, 'Unanswered')).toBe('none: no request reached the service');
    expect(figure(manifest, 'Requests')).toMatch(/^0 sent .*6 retries \(none connected\)$/);
  });

  it('says every request sent was answered when some were', () => {
    const base = fixtureManifest();
    const rows = base.rows.map((row) => ({
      ...row,
      steps: row.steps.map((step) => ({ ...step, ambiguous_attempts: 0 })),
    }));
    expect(figure({ ...base, rows }, 'Unanswered')).toBe('none: every request sent was answered');
  });
});
