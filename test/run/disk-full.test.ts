/**
 * A full disk in the middle of a run: the result that could not be written keeps its answer, no
 * new step is started, the run ends resumable (exit 4, `stopped_by: storage`), and the next run
 * downloads the answer without sending anything. The disk fills (ENOSPC) when the runner reads back
 * a file it just wrote, as if the write had failed: the one place the test can reach.
 */
import { describe, expect, it, vi } from 'vitest';
import { runIn, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const disk = vi.hoisted(() => ({ full: false }));
vi.mock('../../src/media/media-info.js', async (original) => {
  const real = await original<typeof import('../../src/media/media-info.js')>();
  return {
    ...real,
    mediaInfo: (...args: Parameters<typeof real.mediaInfo>) => {
      if (disk.full)
        return Promise.reject(
          Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }),
        );
      return real.mediaInfo(...args);
    },
  };
});

const sandboxWith = sandboxesFor();

const VOICES = `version: 1
name: full
api: { plan: pro }
concurrency: 1
rows:
${Array.from({ length: 6 }, (_, i) => `  - { k: R${i + 1} }`).join('\n')}
row_key: k
steps:
  - id: voice
    tts: { text: "row \${{ row.k }}" }
`;

describe('a full disk', () => {
  it('stops the run resumable, keeps every answer, and the next run downloads them without sending', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(VOICES);
    disk.full = true;
    const first = await runIn(ws, sandbox, { quotaUsed: 0 });
    disk.full = false;
    expect(first.exitCode).toBe(4);
    expect(first.manifest).toMatchObject({ status: 'stopped', stopped_by: 'storage' });
    expect(first.manifest?.totals.steps.deferred).toBe(6);
    expect(ws.logs.filter((line) => line.includes('cannot be written')).length).toBe(1);
    // Whatever was answered before the stop took effect is paid and recorded, not lost.
    const sent = await stats(sandbox);
    expect(sent.charges.count).toBe(sent.requests.total);
    expect(first.manifest?.totals.credits.used).toBe(10 * sent.charges.count);

    const second = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(second.exitCode).toBe(0);
    const after = await stats(sandbox);
    // Only the rows never answered are sent; the answered ones are downloaded from the journal.
    expect(after.requests.total).toBe(6);
    expect(after.charges.count).toBe(6);
    expect(second.manifest?.totals.credits.paid_total).toBe(60);
  });
});
