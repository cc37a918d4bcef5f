/**
 * The runner against the in-process sandbox: the whole chain, resuming without paying twice, the
 * content-addressed cache, unsafe row keys, and the key absent from every byte written.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest/manifest-schema.js';
import { runIn, workspace } from '../helpers/run-harness.js';
import { stats } from '../helpers/sandbox-http.js';
import { sandboxesFor } from '../helpers/sandboxes.js';
import { CHAIN, files } from '../helpers/chain-pipeline.js';

const sandboxWith = sandboxesFor({ video: { duration_ms: 100 } });

describe('a run', () => {
  it('runs the whole chain, downloads every result and writes a valid manifest', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(0);
    const out = path.join(ws.out, 'chain');
    expect(files(out).filter((f) => !f.startsWith('runs/'))).toEqual([
      'A1/big.png',
      'A1/cutout.png',
      'A1/hero-2.png',
      'A1/hero.png',
      'A1/recolor.png',
      'A1/teaser.mp4',
      'A1/voice.mp3',
      'B2/big.png',
      'B2/cutout.png',
      'B2/hero-2.png',
      'B2/hero.png',
      'B2/recolor.png',
      'B2/teaser.mp4',
      'B2/voice.mp3',
      'assets.csv',
      'journal.jsonl',
      'manifest.json',
      'report.html',
    ]);
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')));
    expect(manifest.status).toBe('complete');
    expect(manifest.totals.steps).toEqual({ done: 12, failed: 0, skipped: 0, deferred: 0, cached: 0 });
    // What the runner says it used is what the sandbox charged, and the plan.
    const charged = await stats(sandbox);
    expect(manifest.totals.credits).toMatchObject({ planned: 5220, used: 5220 });
    expect(charged.charges.credits).toBe(5220);
    expect(manifest.totals.requests.sent).toBe(charged.requests.total);
    expect(Object.values(charged.charges.by_idempotency_key).every((n) => n === 1)).toBe(true);
    const big = manifest.rows[0]?.steps.find((s) => s.step === 'big');
    expect(big?.files[0]).toMatchObject({ path: 'A1/big.png', width: 512, height: 512, media_type: 'image/png' });
    expect(manifest.rows[0]?.steps.find((s) => s.step === 'teaser')?.files[0]).toMatchObject({ duration_seconds: 4 });
    expect(readdirSync(path.join(out, 'runs'))).toHaveLength(1);
  });

  it('sends nothing and pays nothing when run again unchanged', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    await runIn(ws, sandbox);
    const before = await stats(sandbox);
    const again = await runIn(ws, sandbox);
    expect(again.exitCode).toBe(0);
    expect(again.plan.credits.total).toBe(0);
    expect(again.plan.cached.instances).toBe(12);
    expect((await stats(sandbox)).requests.total).toBe(before.requests.total);
    expect(again.manifest?.totals.steps.cached).toBe(12);
    expect(again.manifest?.totals.credits.saved_by_cache).toBe(5220);
  });

  it('reuses results by content: rows reordered and a row added cost only the new row', async () => {
    const sandbox = await sandboxWith();
    const ws = workspace(CHAIN);
    await runIn(ws, sandbox);
    const charged = (await stats(sandbox)).charges.credits;
    const reordered = CHAIN.replace(
      '  - { sku: A1, name: Runner }\n  - { sku: B2, name: Walker }\n',
      '  - { sku: C3, name: Climber }\n  - { sku: B2, name: Walker }\n  - { sku: A1, name: Runner }\n',
    );
    writeFileSync(ws.pipeline, reordered);
    const result = await runIn(ws, sandbox);
    expect(result.manifest?.totals.steps).toMatchObject({ done: 6, cached: 12 });
    // Only the new row C3 is sent: its 6 steps, 2,610 credits.
    expect((await stats(sandbox)).charges.credits - charged).toBe(2610);
    expect(result.manifest?.rows.map((row) => row.key)).toEqual(['C3', 'B2', 'A1']);
    // assets.csv follows the sheet: the new row made now, the others reused and paid for before.
    const sheet = parse(readFileSync(path.join(ws.out, 'chain/assets.csv')), { bom: true, columns: true }) as Record<
      string,
      string
    >[];
    expect(
      sheet.map((line) => [line.row, line.name, line.hero_status, line.hero_2, line.credits_run, line.credits_total]),
    ).toEqual([
      ['C3', 'Climber', 'done', 'C3/hero-2.png', '2610', '2610'],
      ['B2', 'Walker', 'cached', 'B2/hero-2.png', '0', '2610'],
      ['A1', 'Runner', 'cached', 'A1/hero-2.png', '0', '2610'],
    ]);
  });
});

describe('what is written', () => {
  it('keeps files built from row keys inside the output folder', async () => {
    const sandbox = await sandboxWith();
    const yaml = `version: 1\nname: safe\nrows:\n  - { sku: "../../../evil", name: x }\n  - { sku: "/etc/passwd", name: y }\nrow_key: sku\nsteps:\n  - id: voice\n    tts: { text: "\${{ row.name }}" }\n`;
    const ws = workspace(yaml);
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(0);
    expect(files(ws.dir).filter((f) => f.endsWith('.mp3'))).toEqual(
      ['out/safe/___.._.._evil/voice.mp3', 'out/safe/_etc_passwd/voice.mp3'].sort(),
    );
  });

  it('has the key in no byte it writes, logs or reports', async () => {
    const secret = 'sk-live-SECRET-run-key-7f3e9a';
    const sandbox = await sandboxWith({ keys: [{ key: secret, name: 'team', plan: 'pro', credits: 100_000 }] });
    sandbox.faults.script([{ fault: 'status=503' }, { fault: 'reset-after' }]);
    const ws = workspace(CHAIN);
    const result = await runIn(ws, sandbox, { apiKey: secret });
    expect(result.exitCode).toBe(0);
    const everything = [
      ...files(ws.dir).map((f) => readFileSync(path.join(ws.dir, f)).toString('latin1')),
      ...files(ws.dir),
      ws.logs.join(''),
      JSON.stringify(result),
    ].join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    expect(everything).not.toContain(secret);
    expect(statSync(ws.state).isDirectory()).toBe(true);
  });
});
