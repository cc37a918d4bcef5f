/**
 * The plan a person reads before the night is what the run then does: `plan` reads the output
 * folder the run will use, so after a run and an edit to the sheet it counts only the changed and
 * new rows, and the run right after it spends exactly its credits and sends exactly its submits.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/plan/plan-file.js';
import { planText } from '../../src/plan/plan-text.js';
import { CHAIN } from '../helpers/chain-pipeline.js';
import { runIn, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';

const sandboxWith = sandboxesFor({ video: { duration_ms: 100 } });

describe('plan after a run', () => {
  it('counts only what the next run sends, and the run spends exactly that', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    const plan = (fresh = false) =>
      planFile(ws.pipeline, {
        cwd: ws.dir,
        allowUnpriced: false,
        out: ws.out,
        stateDir: ws.state,
        fresh,
        quotaUsed: 0,
      });

    const before = (await plan()).plan;
    expect(before?.credits.total).toBe(5220);
    expect(before?.cached).toMatchObject({ instances: 0, rows: 0 });
    await runIn(ws, sandbox, { quotaUsed: 0 });

    const unchanged = (await plan()).plan;
    expect(unchanged).toMatchObject({ credits: { total: 0 }, requests: { submits: 0 }, rowsToSend: [] });
    expect(unchanged?.cached).toEqual({ instances: 12, creditsSaved: 5220, rows: 2 });

    // B2 renamed (its prompt and its voice-over change), C3 added, A1 as it was.
    writeFileSync(
      ws.pipeline,
      CHAIN.replace(
        '  - { sku: B2, name: Walker }\n',
        '  - { sku: B2, name: Hiker }\n  - { sku: C3, name: Climber }\n',
      ),
    );
    const edited = (await plan()).plan;
    expect(edited?.rowsToSend).toEqual(['B2', 'C3']);
    expect(edited?.cached).toMatchObject({ instances: 6, rows: 1, creditsSaved: 2610 });
    expect(edited?.credits.total).toBe(5220);
    expect(planText(edited as NonNullable<typeof edited>)).toContain(
      'to send:   2 rows changed or new, 12 steps, 5,220 credits; 1 row unchanged (cached, 2,610 credits saved)',
    );
    expect((await plan(true)).plan?.credits.total).toBe(7830);

    const charged = (await stats(sandbox)).charges.credits;
    const result = await runIn(ws, sandbox, { quotaUsed: 0 });
    expect(result.exitCode).toBe(0);
    expect((await stats(sandbox)).charges.credits - charged).toBe(edited?.credits.total);
    expect(result.manifest?.totals.requests.submits).toBe(edited?.requests.submits);
    expect(result.manifest?.totals.steps).toMatchObject({ done: 12, cached: 6 });
  });
});
