/** The journal: durable appends shared by concurrent writers, replay, torn lines, compaction. */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, replay } from '../../src/run/journal.js';
import { lostTotal, paidTotal } from '../../src/run/settlement.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const intent = (key: string, generation = 0, fingerprint = 'f1') =>
  ({ type: 'intent', t: 1, key, fingerprint, generation, idempotency_key: `k-${key}-${generation}` }) as const;

describe('journal', () => {
  it('puts every awaited record on disk, many at once in one write', async () => {
    const file = path.join(tempDir(), 'journal.jsonl');
    const { journal } = await Journal.open(file, { fresh: false, now: 0 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => journal.append(intent(`r${i}/s`))));
    // Read while still open: an awaited append is already in the file.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(200);
    await journal.close();
  });

  it('replays each instance from its latest intent, and a crash intent keeps its generation', () => {
    const lines = [
      intent('A/s', 0),
      { type: 'answered', t: 2, key: 'A/s', request_id: 'r1', urls: ['u'], credits_used: 5 },
      { type: 'failed', t: 3, key: 'A/s', kind: 'permanent', status: 400, code: 'x', message: 'm', request_id: 'r1' },
      intent('A/s', 1),
      { type: 'submitted', t: 4, key: 'A/s', request_id: 'job1', idempotency_key: 'k' },
      intent('B/s', 0),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const state = replay(`${lines}\n{"type":"answered","key":"B/s","t":`);
    const a = state.instances.get('A/s');
    expect(a).toMatchObject({ generation: 1, idempotencyKey: 'k-A/s-1', requestIds: ['job1'] });
    expect(a?.failed).toBeUndefined();
    expect(a?.answer).toBeUndefined();
    // The torn last line is skipped.
    expect(state.instances.get('B/s')?.answer).toBeUndefined();
  });

  it('indexes finished results by fingerprint for the cache, and compacts on opening', async () => {
    const file = path.join(tempDir(), 'journal.jsonl');
    const done = (key: string, fingerprint: string) => ({
      type: 'downloaded',
      t: 5,
      key,
      fingerprint,
      files: [{ path: `${key}.png`, index: 0, sha256: 'a'.repeat(64), bytes: 1, media_type: 'image/png', url: 'u' }],
    });
    for (let run = 0; run < 5; run++) {
      appendFileSync(
        file,
        `${JSON.stringify({ type: 'run', t: run, run_id: `r${run}` })}\n${JSON.stringify(intent('A/s', run, `f${run}`))}\n${JSON.stringify(done('A/s', `f${run}`))}\n`,
      );
    }
    const { journal, state } = await Journal.open(file, { fresh: false, now: 0 });
    await journal.close();
    expect([...state.results.fingerprints()]).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
    expect(state.instances.get('A/s')?.downloaded?.fingerprint).toBe('f4');
    const compacted = readFileSync(file, 'utf8').trim().split('\n');
    expect(compacted.some((line) => line.includes('"type":"run"'))).toBe(false);
    expect(compacted.length).toBeLessThan(15);
    expect(replay(compacted.join('\n')).instances.get('A/s')?.downloaded?.fingerprint).toBe('f4');
  });

  it('sets an old journal aside with fresh', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.jsonl');
    appendFileSync(file, `${JSON.stringify(intent('A/s'))}\n`);
    const { journal, state } = await Journal.open(file, { fresh: true, now: 42 });
    await journal.close();
    expect(state.instances.size).toBe(0);
    expect(readFileSync(`${file}.42.old`, 'utf8')).toContain('A/s');
  });

  it('keeps the books of each instance (paid, lost, settled) through generations and compaction', async () => {
    const file = path.join(tempDir(), 'journal.jsonl');
    const records = [
      { ...intent('A/s', 0), operation: 'generate', credits_planned: 100 },
      { type: 'answered', t: 2, key: 'A/s', request_id: 'r1', urls: ['u1'], credits_used: 100 },
      // Its URL expired before it was saved: lost, and the key is settled.
      { type: 'lost', t: 3, key: 'A/s', credits: 100, reason: 'expired', request_id: 'r1', answer: true },
      { ...intent('B/s', 0), operation: 'tts', credits_planned: 10 },
      { type: 'answered', t: 2, key: 'B/s', request_id: 'r2', urls: ['u2'], credits_used: undefined },
      // A new content for B: the first answer's credits (the planned 10) go to the books.
      { ...intent('B/s', 0, 'f2'), idempotency_key: 'k-B/s-f2', operation: 'tts', credits_planned: 10 },
      { type: 'answered', t: 4, key: 'B/s', request_id: 'r3', urls: ['u3'], credits_used: 12 },
      { type: 'paid', t: 5, key: 'B/s', credits: 7, request_ids: ['job-abandoned'] },
      // A transient failure settles nothing; a 400 does.
      intent('C/s', 0),
      {
        type: 'failed',
        t: 2,
        key: 'C/s',
        kind: 'transient',
        status: 503,
        code: 'x',
        message: 'm',
        request_id: undefined,
      },
      intent('D/s', 0),
      {
        type: 'failed',
        t: 2,
        key: 'D/s',
        kind: 'permanent',
        status: 400,
        code: 'x',
        message: 'm',
        request_id: undefined,
      },
    ];
    appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const check = (state: Awaited<ReturnType<typeof Journal.open>>['state']) => {
      const a = state.instances.get('A/s');
      expect({ paid: paidTotal(a), lost: lostTotal(a), settled: a?.settled, answer: a?.answer }).toEqual({
        paid: 100,
        lost: 100,
        settled: true,
        answer: undefined,
      });
      const b = state.instances.get('B/s');
      expect({ paid: paidTotal(b), lost: lostTotal(b), booked: b?.booked }).toEqual({
        paid: 10 + 12 + 7,
        lost: 0,
        booked: ['job-abandoned'],
      });
      expect(state.instances.get('C/s')?.settled).toBe(false);
      expect(state.instances.get('D/s')?.settled).toBe(true);
    };
    const first = await Journal.open(file, { fresh: false, now: 0 });
    await first.journal.close();
    check(first.state);
    // Opened again: what compaction wrote says the same.
    const second = await Journal.open(file, { fresh: false, now: 0 });
    await second.journal.close();
    check(second.state);
  });
});
