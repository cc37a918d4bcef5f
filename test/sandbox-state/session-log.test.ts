/** A session's log: whole lines, a line cut short by a kill skipped, a damaged one refused, nothing after close. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLog, SessionLog } from '../../src/sandbox/persist/session-log.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('session log', () => {
  it('appends whole lines, then closes with a closed record and writes no more', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = SessionLog.create(file, { t: 'owner', pid: 1, host: 'h', started_at: 5 });
    log.append({ t: 'request', account: 'demo', at: 6 });
    log.close(7);
    expect(() => log.append({ t: 'request', account: 'demo', at: 8 })).toThrow(/stopped/);
    expect(parseLog(readFileSync(file, 'utf8'))).toEqual([
      { t: 'owner', pid: 1, host: 'h', started_at: 5 },
      { t: 'request', account: 'demo', at: 6 },
      { t: 'closed', at: 7 },
    ]);
    expect(() => SessionLog.create(file, { t: 'owner', pid: 1, host: 'h', started_at: 5 })).toThrow(/EEXIST/);
  });

  it('skips a last line a kill cut short, and refuses a damaged line anywhere else', () => {
    const whole = `${JSON.stringify({ t: 'request', account: 'demo', at: 6 })}\n`;
    expect(parseLog(`${whole}{"t":"requ`)).toHaveLength(1);
    expect(parseLog(`${whole}{"t":"requ\n${whole}`)).toBeUndefined();
    // Complete, but not a record: damage, not a kill.
    expect(parseLog(`${whole}{"t":"nothing"}\n`)).toBeUndefined();
    expect(parseLog('')).toEqual([]);
  });
});
