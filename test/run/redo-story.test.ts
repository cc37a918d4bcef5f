/**
 * A redo's story in the journal: when it starts, when an unfinished one is resolved instead, that
 * it survives compaction; and how the earlier result is kept, also when a crash cut that short.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../src/run/fingerprint.js';
import type { JournalRecord } from '../../src/run/journal-records.js';
import { Journal, replay } from '../../src/run/journal.js';
import { keepEarlier } from '../../src/run/keep-earlier.js';
import { OutputLayout } from '../../src/run/output-layout.js';
import { isOpenRedo, redoStep } from '../../src/run/redo-story.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const stateOf = (...records: JournalRecord[]) => replay(records.map((r) => JSON.stringify(r)).join('\n'));
const intent = (generation: number, redo = false): JournalRecord => ({
  type: 'intent',
  t: 1,
  key: 'A/s',
  fingerprint: 'f',
  generation,
  idempotency_key: `k${generation}`,
  ...(redo && { redo: true }),
});
const answered: JournalRecord = { type: 'answered', t: 2, key: 'A/s', request_id: 'r', urls: ['u'], credits_used: 5 };
const downloaded = (file = 'A/s.png', runId: string | null = 'run-1'): JournalRecord => ({
  type: 'downloaded',
  t: 3,
  key: 'A/s',
  fingerprint: 'f',
  files: [
    {
      path: file,
      index: 0,
      sha256: 'a'.repeat(64),
      bytes: 4,
      media_type: 'image/png',
      url: 'u',
      ...(runId !== null && { run_id: runId }),
    },
  ],
});

describe('a redo story', () => {
  it('starts over a finished result, and resolves work that is not finished instead', () => {
    const done = stateOf(intent(0), answered, downloaded()).instances.get('A/s');
    expect(redoStep(done, 'f', true)).toBe('start');
    expect(redoStep(done, 'f', false)).toBe('none');
    // Sent without an answer, or answered and not saved: that work is resolved under its key.
    expect(redoStep(stateOf(intent(0)).instances.get('A/s'), 'f', true)).toBe('continue');
    expect(redoStep(stateOf(intent(0), answered).instances.get('A/s'), 'f', true)).toBe('continue');
    // Other work (the inputs changed since): a new story.
    expect(redoStep(stateOf(intent(0)).instances.get('A/s'), 'g', true)).toBe('start');
  });

  it('left unfinished, is resolved by the next run whether it asks again or not, and survives compaction', async () => {
    const open = stateOf(intent(0), answered, downloaded(), intent(1, true));
    expect(isOpenRedo(open.instances.get('A/s'))).toBe(true);
    expect(redoStep(open.instances.get('A/s'), 'f', false)).toBe('continue');
    const file = path.join(tempDir(), 'journal.jsonl');
    writeFileSync(file, [intent(0), answered, downloaded(), intent(1, true)].map((r) => JSON.stringify(r)).join('\n'));
    const { journal } = await Journal.open(file, { fresh: false, now: 0 });
    await journal.close();
    expect(isOpenRedo(replay(readFileSync(file, 'utf8')).instances.get('A/s'))).toBe(true);
    // Finished: the next redo is a new one.
    const finished = stateOf(intent(0), answered, downloaded(), intent(1, true), answered, downloaded());
    expect(redoStep(finished.instances.get('A/s'), 'f', true)).toBe('start');
    expect(isOpenRedo(finished.instances.get('A/s'))).toBe(false);
  });

  it('gets a key salted with the run id: the same work at the same generation, a key never used', () => {
    const plain = idempotencyKey('p', 'A/s', 'f', 1);
    expect(idempotencyKey('p', 'A/s', 'f', 1, 'run-2')).not.toBe(plain);
    expect(idempotencyKey('p', 'A/s', 'f', 1, 'run-2')).not.toBe(idempotencyKey('p', 'A/s', 'f', 1, 'run-3'));
    expect(idempotencyKey('p', 'A/s', 'f', 1, 'run-2')).toMatch(/^al-[0-9a-f]{40}$/);
  });
});

describe('keeping the earlier result', () => {
  async function folder(...records: JournalRecord[]) {
    const layout = new OutputLayout(tempDir(), 'p');
    mkdirSync(path.join(layout.dir, 'A'), { recursive: true });
    writeFileSync(path.join(layout.dir, 'A', 's.png'), 'old!');
    const file = layout.journal;
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
    const { journal, state } = await Journal.open(file, { fresh: false, now: 0 });
    return { layout, journal, state, now: () => 5 };
  }

  it('moves it under the run that saved it, and journals where it is before removing it', async () => {
    const context = await folder(intent(0), answered, downloaded());
    const kept = await keepEarlier(context, 'A/s');
    await context.journal.close();
    expect(kept).toEqual([expect.objectContaining({ path: 'runs/run-1/A/s.png', run_id: 'run-1' })]);
    expect(readFileSync(path.join(context.layout.dir, 'runs', 'run-1', 'A', 's.png'), 'utf8')).toBe('old!');
    expect(existsSync(path.join(context.layout.dir, 'A', 's.png'))).toBe(false);
    const after = replay(readFileSync(context.layout.journal, 'utf8'));
    expect(after.instances.get('A/s')?.downloaded?.files[0]?.path).toBe('runs/run-1/A/s.png');
    expect(after.results.get('f')?.files[0]?.path).toBe('runs/run-1/A/s.png');
  });

  it('finishes a keep a crash cut short: linked but not journaled, or journaled already', async () => {
    const linked = await folder(intent(0), answered, downloaded());
    mkdirSync(path.join(linked.layout.dir, 'runs', 'run-1', 'A'), { recursive: true });
    linkSync(path.join(linked.layout.dir, 'A', 's.png'), path.join(linked.layout.dir, 'runs', 'run-1', 'A', 's.png'));
    expect((await keepEarlier(linked, 'A/s')).map((file) => file.path)).toEqual(['runs/run-1/A/s.png']);
    expect(existsSync(path.join(linked.layout.dir, 'A', 's.png'))).toBe(false);
    // Journaled at its kept place: kept as it is.
    expect((await keepEarlier(linked, 'A/s')).map((file) => file.path)).toEqual(['runs/run-1/A/s.png']);
    await linked.journal.close();
  });

  it('keeps files saved before runs were recorded under runs/earlier/, and nothing of a file deleted by hand', async () => {
    const legacy = await folder(intent(0), answered, downloaded('A/s.png', null));
    expect((await keepEarlier(legacy, 'A/s')).map((file) => file.path)).toEqual(['runs/earlier/A/s.png']);
    await legacy.journal.close();
    const gone = await folder(intent(0), answered, downloaded('A/t.png'));
    expect(await keepEarlier(gone, 'A/s')).toEqual([]);
    await gone.journal.close();
  });
});
