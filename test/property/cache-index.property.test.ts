/**
 * The plan's lean read of a journal (CacheIndex) finds exactly the results the run's full replay
 * does, for any sequence of intents and downloads: new attempts, resumed ones, the same work done
 * for several rows, and row keys that need escaping in JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheIndex, journalCacheSource } from '../../src/run/cache-index.js';
import { replay } from '../../src/run/journal.js';

const KEYS = ['A/hero', 'B/hero', 'say "hi"/voice', 'C\\D/big'];
const FINGERPRINTS = ['f1', 'f2', 'f3'];

const record = fc.oneof(
  fc.record({
    type: fc.constant('intent' as const),
    t: fc.nat(),
    key: fc.constantFrom(...KEYS),
    fingerprint: fc.constantFrom(...FINGERPRINTS),
    generation: fc.nat({ max: 2 }),
  }),
  fc.record({
    type: fc.constant('downloaded' as const),
    t: fc.nat(),
    key: fc.constantFrom(...KEYS),
    fingerprint: fc.constantFrom(...FINGERPRINTS),
    files: fc.constant([]),
  }),
  fc.record({ type: fc.constant('answered' as const), t: fc.nat(), key: fc.constantFrom(...KEYS) }),
);

describe('CacheIndex', () => {
  it('agrees with the full replay on every own result and every result by fingerprint', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const lines = records.map((value, at) => {
          // The idempotency key follows the work and the generation, as the runner makes it.
          const withKey =
            value.type === 'intent'
              ? { ...value, idempotency_key: `${value.key}|${value.fingerprint}|${value.generation}` }
              : value;
          return JSON.stringify({ ...withKey, t: at });
        });
        const full = journalCacheSource(replay(lines.join('\n')));
        const lean = new CacheIndex();
        for (const line of lines) lean.applyLine(line);
        for (const key of KEYS) expect(lean.ownResult(key)).toEqual(full.ownResult(key));
        for (const fingerprint of FINGERPRINTS)
          expect(lean.resultFor(fingerprint)).toEqual(full.resultFor(fingerprint));
      }),
      { numRuns: 500 },
    );
  });

  it('reads a missing journal as empty', async () => {
    const index = await CacheIndex.read('/nonexistent/journal.jsonl');
    expect(index.resultFor('f1')).toBeUndefined();
  });

  it('skips records it does not need without parsing them, and parses lines in another shape', () => {
    const index = new CacheIndex();
    index.applyLine('{"type":"answered", this is not json');
    index.applyLine('{ "t": 1, "type": "downloaded", "key": "A/hero", "fingerprint": "f1", "files": [] }');
    expect(index.ownResult('A/hero')).toMatchObject({ key: 'A/hero', fingerprint: 'f1' });
  });
});
