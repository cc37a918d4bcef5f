/** The journal: durable appends shared by concurrent writers, replay, torn lines, compaction. */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, replay } from '../../src/run/journal.js';
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
    expect([...state.results.keys()]).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
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
});
