/**
 * report.html in a real browser (the system's Chromium): the demo's gallery shows every image,
 * audio and video from the files beside it and asks nothing of the network; failures come before
 * the gallery; and a report of 1,000 rows loads its media only as they are scrolled near.
 *
 * The snippets run in the page are strings: this project compiles without the DOM lib.
 */
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Manifest, type ManifestStep, manifestSchema } from '../../src/manifest/manifest-schema.js';
import { reportRun } from '../../src/library/report.js';
import { summarize } from '../../src/manifest/manifest-summary.js';
import { reportHtml } from '../../src/report/report-html.js';
import type { RunResult } from '../../src/run/run-pipeline.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.js';
import { chromiumPath, isExecutable, launchChromium, missingChromiumMessage } from '../helpers/chromium.js';
import { FAST_VIDEO, runIn, type Workspace, workspace } from '../helpers/run-harness.js';
import { tempDir } from '../helpers/temp-pipeline.js';

const CHROMIUM = chromiumPath();
const NO_CHROMIUM = !isExecutable(CHROMIUM);
if (NO_CHROMIUM) console.warn(missingChromiumMessage(CHROMIUM));

// pipelines/demo.yaml with the test's fast video polling: every operation once, one row.
const DEMO = `version: 1
name: shoe-demo
${FAST_VIDEO}budget:
  max_credits: 5000
concurrency: 4
row_key: sku
rows:
  - { sku: DEMO-1, name: Trail Runner, color: red, material: recycled mesh }
steps:
  - id: hero
    generate:
      model: z-image-turbo
      prompt: "Studio photo of the \${{ row.name }} running shoe in \${{ row.color }} \${{ row.material }}"
      width: 1024
      height: 1024
      num_images: 2
  - id: recolor
    edit: { model: eta-edit, image: "\${{ steps.hero.outputs[1] }}", prompt: "Make the laces bright yellow" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: cutout
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: teaser
    video:
      model: gamma3-fast-i2v
      image: "\${{ steps.hero.output }}"
      prompt: "Slow orbit around the \${{ row.name }}"
      duration: 4
      aspect_ratio: "9:16"
  - id: voice
    tts: { text: "Meet the \${{ row.name }}: \${{ row.material }}, made to run.", model: tts-alpha }
`;

// Row A1 asks for a scale the sandbox refuses (400 invalid_scale, not retried); B2 succeeds.
const BROKEN = `version: 1
name: broken
${FAST_VIDEO}row_key: sku
rows:
  - { sku: A1, scale: 5 }
  - { sku: B2, scale: 2 }
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of \${{ row.sku }}", width: 256, height: 256 }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: "\${{ row.scale }}" }
  - id: voice
    tts: { text: "row \${{ row.sku }}" }
`;

/** What the page shows of each image, audio and video in the gallery. */
interface MediaState {
  readonly tag: string;
  readonly src: string;
  readonly complete: boolean;
  readonly naturalWidth: number;
  readonly readyState: number;
  readonly duration: number;
  readonly preload: string;
}

const MEDIA_STATE = `[...document.querySelectorAll('#gallery img, #gallery audio, #gallery video')].map((el) => ({
  tag: el.tagName.toLowerCase(),
  src: el.getAttribute('src'),
  complete: el.tagName === 'IMG' ? el.complete : false,
  naturalWidth: el.tagName === 'IMG' ? el.naturalWidth : 0,
  readyState: el.tagName === 'IMG' ? 0 : el.readyState,
  duration: el.tagName === 'IMG' ? 0 : el.duration,
  preload: el.tagName === 'IMG' ? '' : el.preload,
}))`;

/** An image has loaded when it decoded to a real size; audio and video once their metadata did. */
function loaded(state: MediaState): boolean {
  return state.tag === 'img'
    ? state.complete && state.naturalWidth > 0
    : state.readyState >= 1 && Number.isFinite(state.duration) && state.duration > 0;
}

const ALL_MEDIA_LOADED = `[...document.querySelectorAll('#gallery img')].every((img) => img.complete && img.naturalWidth > 0)
  && [...document.querySelectorAll('#gallery audio, #gallery video')].every((m) => m.readyState >= 1 && m.duration > 0)`;

/** What the page asked for and what went wrong, as its developer tools would show it. */
interface PageLog {
  readonly requests: string[];
  readonly finished: Set<string>;
  readonly failed: Map<string, string>;
  readonly errors: string[];
}

/** Requests that failed: none should (a player loading its file twice shows up here as an abort). */
function unanswered(log: PageLog): string[] {
  return [...log.failed].map(([url, error]) => `${url}: ${error}`);
}

/** Distinct asset files the page asked for. */
function assetsRequested(log: PageLog): number {
  return new Set(log.requests.filter((url) => /\.(png|mp3|mp4)$/.test(url))).size;
}

describe.skipIf(NO_CHROMIUM)('report.html in Chromium', { timeout: 120_000 }, () => {
  const pages: Page[] = [];
  let browser: Browser;
  let sandbox: Sandbox;
  let demo: Workspace;
  let demoRun: RunResult;

  beforeAll(async () => {
    [browser, sandbox] = await Promise.all([
      launchChromium(CHROMIUM),
      startSandbox({ config: { seed: 1, video: { duration_ms: 100 } } }),
    ]);
    demo = workspace(DEMO);
    demoRun = await runIn(demo, sandbox);
  }, 120_000);

  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.close()));
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), sandbox?.stop()]);
  });

  async function open(file: string): Promise<{ page: Page; log: PageLog }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    pages.push(page);
    const log: PageLog = { requests: [], finished: new Set(), failed: new Map(), errors: [] };
    page.on('request', (request) => log.requests.push(request.url()));
    page.on('requestfinished', (request) => log.finished.add(request.url()));
    page.on('requestfailed', (request) => log.failed.set(request.url(), request.failure()?.errorText ?? 'failed'));
    page.on('console', (message) => {
      if (message.type() === 'error') log.errors.push(message.text());
    });
    page.on('pageerror', (error) => log.errors.push(error.message));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return { page, log };
  }

  it('shows every asset of the demo, loaded from the files beside it and nothing from elsewhere', async () => {
    expect(demoRun.exitCode).toBe(0);
    const out = path.join(demo.out, 'shoe-demo');
    const assets = readdirSync(path.join(out, 'DEMO-1'))
      .map((name) => `DEMO-1/${name}`)
      .sort();
    expect(assets).toHaveLength(7); // two heroes, the edit, the upscale, the cut-out, the video, the voice
    const { page, log } = await open(path.join(out, 'report.html'));

    expect(await page.title()).toBe('assetline: shoe-demo: complete');
    expect(await page.locator('h1').innerText()).toMatch(/^shoe-demo\b/);
    const rows = page.locator('#gallery section.row');
    expect(await rows.count()).toBe(1);
    expect(await rows.locator('h3').innerText()).toBe('DEMO-1');
    const cards = rows.locator('figure.card');
    expect(await cards.count()).toBe(assets.length);

    for (const card of await cards.all()) await card.scrollIntoViewIfNeeded();
    // On a timeout the assertions below say which file did not load.
    await page.waitForFunction(ALL_MEDIA_LOADED, undefined, { timeout: 20_000 }).catch(() => undefined);
    const media = await page.evaluate<MediaState[]>(MEDIA_STATE);
    // One player or picture per file on disk, each showing that file.
    expect(media.map((m) => m.src).sort()).toEqual(assets);
    expect(media.map((m) => m.tag).sort()).toEqual(['audio', 'img', 'img', 'img', 'img', 'img', 'video']);
    expect(media.filter((m) => !loaded(m))).toEqual([]);

    // The cut-out is transparent: its frame shows a checkerboard behind it.
    const cutoutBackground = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('a.thumb[href="DEMO-1/cutout.png"]')).backgroundImage`,
    );
    expect(cutoutBackground).toContain('conic-gradient');

    expect(log.errors).toEqual([]);
    expect(unanswered(log)).toEqual([]);
    expect(log.requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
    expect(log.requests.length).toBeGreaterThanOrEqual(1 + assets.length);

    // The gallery really painted: a wide picture with many colours, not a blank or broken box.
    const shot = path.join(tempDir(), 'gallery.png');
    await page.locator('#gallery').screenshot({ path: shot });
    const picture = sharp(shot);
    const { width, height } = await picture.metadata();
    expect(width).toBeGreaterThanOrEqual(800);
    expect(height).toBeGreaterThanOrEqual(200);
    const { channels } = await picture.stats();
    const spread = Math.max(...channels.slice(0, 3).map((channel) => channel.stdev));
    expect(spread).toBeGreaterThan(20);
    expect(await distinctColours(shot)).toBeGreaterThan(1000);
  });

  it("shows an older run's page (runs/<run-id>.html) with every asset, from the folder above it", async () => {
    const out = path.join(demo.out, 'shoe-demo');
    const id = demoRun.manifest?.run_id ?? '';
    const { htmlFile } = await reportRun(path.join(out, 'runs', `${id}.json`), { cwd: demo.out, html: true });
    expect(htmlFile).toBe(path.join(out, 'runs', `${id}.html`));
    const { page, log } = await open(htmlFile ?? '');
    for (const card of await page.locator('#gallery figure.card').all()) await card.scrollIntoViewIfNeeded();
    await page.waitForFunction(ALL_MEDIA_LOADED, undefined, { timeout: 20_000 }).catch(() => undefined);
    const media = await page.evaluate<MediaState[]>(MEDIA_STATE);
    expect(media).toHaveLength(7);
    // Each src, from runs/, is a file of the run's output folder.
    for (const { src } of media) {
      expect(src).toMatch(/^\.\.\/DEMO-1\//);
      expect(existsSync(path.join(out, 'runs', decodeURIComponent(src)))).toBe(true);
    }
    expect(media.filter((m) => m.tag === 'img').every((m) => m.naturalWidth > 0)).toBe(true);
    expect(media.filter((m) => !loaded(m))).toEqual([]);
    expect(await page.locator('a[href="../assets.csv"]').count()).toBe(1);
    expect(log.errors).toEqual([]);
    expect(unanswered(log)).toEqual([]);
  });

  it('puts a failure above the gallery, naming its row, step and error, and marks its card', async () => {
    const ws = workspace(BROKEN);
    const result = await runIn(ws, sandbox);
    expect(result.exitCode).toBe(1);
    const { page, log } = await open(path.join(ws.out, 'broken', 'report.html'));

    const failures = page.locator('#failures');
    const gallery = page.locator('#gallery');
    const [failuresBox, galleryBox] = await Promise.all([failures.boundingBox(), gallery.boundingBox()]);
    expect(failuresBox).not.toBeNull();
    expect(galleryBox).not.toBeNull();
    expect(failuresBox!.y + failuresBox!.height).toBeLessThanOrEqual(galleryBox!.y);
    expect(failuresBox!.y).toBeLessThan(800); // on the first screen

    const lines = failures.locator('tbody tr');
    expect(await lines.count()).toBe(1);
    const cells = await lines.first().locator('td').allInnerTexts();
    expect(cells.slice(0, 2)).toEqual(['A1', 'big']);
    expect(cells[3]).toContain('invalid_scale');

    const failedCards = gallery.locator('figure.card.failed');
    expect(await failedCards.count()).toBe(1);
    const failed = failedCards.first();
    expect(await failed.innerText()).toMatch(/invalid_scale[\s\S]*big/);
    expect(await page.locator('#row-0 figure.card.failed').count()).toBe(1);
    // The mark is visible: a solid outline no other card has.
    const outlines = await page.evaluate<string[]>(
      `[...document.querySelectorAll('figure.card')].map((card) => getComputedStyle(card).outlineStyle)`,
    );
    expect(outlines).toHaveLength(6); // two rows of three steps
    expect(outlines.filter((style) => style !== 'none')).toEqual(['solid']);

    // The row link in the failures table takes the reader to that row's cards.
    await lines.first().locator('a').click();
    expect(page.url()).toMatch(/#row-0$/);
    const row = await page.locator('#row-0').boundingBox();
    expect(row!.y).toBeGreaterThanOrEqual(-1);
    expect(row!.y).toBeLessThan(800);

    expect(log.errors).toEqual([]);
    expect(unanswered(log)).toEqual([]);
    expect(log.requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
  });

  it('opens a report of 1,000 rows loading only the media near the screen', async () => {
    const dir = tempDir();
    const source = path.join(demo.out, 'shoe-demo', 'DEMO-1');
    const still = path.join(dir, 'still.png');
    await sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 40, g: 120, b: 200, alpha: 0.8 } } })
      .png()
      .toFile(still);
    const demoFiles = new Map(demoRun.manifest?.rows[0]?.steps.map((step) => [step.step, step.files[0]]));
    const files: Record<string, SyntheticFile> = {
      still: { from: still, media_type: 'image/png', width: 64, height: 48 },
      voice: { from: path.join(source, 'voice.mp3'), ...described(demoFiles.get('voice')) },
      clip: { from: path.join(source, 'teaser.mp4'), ...described(demoFiles.get('teaser')) },
    };
    const out = path.join(dir, 'many');
    const keys = Array.from({ length: 1000 }, (_, i) => `R${String(i + 1).padStart(4, '0')}`);
    for (const key of keys) {
      mkdirSync(path.join(out, key), { recursive: true });
      for (const [step, file] of Object.entries(files))
        linkSync(file.from, path.join(out, key, `${step}${path.extname(file.from)}`));
    }
    const manifest = manifestSchema.parse(syntheticManifest(keys, files));
    const report = path.join(out, 'report.html');
    writeFileSync(report, reportHtml(summarize(manifest)));
    const htmlBytes = statSync(report).size;

    const { page, log } = await open(report);
    const loadMs = await page.evaluate<number>(`performance.getEntriesByType('navigation')[0].loadEventEnd`);
    // What is on the first screen does load.
    await page.waitForFunction(
      `(() => { const img = document.querySelector('#row-0 img'); return img.complete && img.naturalWidth > 0; })()`,
      undefined,
      { timeout: 10_000 },
    );
    const before = await lazyCounts(page, log);
    console.log(
      `report of 1,000 rows: ${(htmlBytes / 1024 / 1024).toFixed(2)} MB of HTML, load event after ${Math.round(loadMs)} ms; ` +
        `on opening ${before.images} images loaded, ${before.woken} players woken, ${before.requested} asset files requested`,
    );
    expect(htmlBytes).toBeLessThan(4 * 1024 * 1024);
    expect(await page.locator('#gallery section.row').count()).toBe(1000);
    expect(before.images).toBeGreaterThan(0);
    expect(before.images).toBeLessThan(100);
    expect(before.woken).toBeLessThan(100);
    expect(before.requested).toBeLessThan(100);

    // Jump to the end: the last row's picture and players load, and the rows skipped over do not.
    await page.evaluate(`window.scrollTo(0, document.documentElement.scrollHeight)`);
    await page.waitForFunction(
      `(() => {
        window.scrollTo(0, document.documentElement.scrollHeight);
        const row = document.querySelector('#row-999');
        const img = row.querySelector('img');
        return img.complete && img.naturalWidth > 0
          && [...row.querySelectorAll('audio, video')].every((m) => m.readyState >= 1);
      })()`,
      undefined,
      { timeout: 20_000 },
    );
    const after = await lazyCounts(page, log);
    console.log(
      `after jumping to the end: ${after.images} images loaded, ${after.woken} players woken, ${after.requested} asset files requested`,
    );
    expect(after.images).toBeLessThan(100);
    expect(after.woken).toBeLessThan(100);
    expect(after.requested).toBeLessThan(100);

    expect(log.errors).toEqual([]);
    expect(unanswered(log)).toEqual([]);
    expect(log.requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
  });
});

interface LazyCounts {
  /** Images decoded to a real size. */
  readonly images: number;
  /** Players switched from preload="none". */
  readonly woken: number;
  /** Distinct image, audio and video files asked for. */
  readonly requested: number;
}

async function lazyCounts(page: Page, log: PageLog): Promise<LazyCounts> {
  const counts = await page.evaluate<Omit<LazyCounts, 'requested'>>(`({
    images: [...document.images].filter((img) => img.complete && img.naturalWidth > 0).length,
    woken: [...document.querySelectorAll('audio, video')].filter((m) => m.preload !== 'none').length,
  })`);
  return { ...counts, requested: assetsRequested(log) };
}

async function distinctColours(png: string): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels)
    colours.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
  return colours.size;
}

type ManifestFile = ManifestStep['files'][number];

/** A file to link into every row, described as the manifest describes it (path, size and hash aside). */
interface SyntheticFile extends Omit<ManifestFile, 'path' | 'bytes' | 'sha256' | 'url' | 'url_expires_at'> {
  readonly from: string;
}

/** What a real run's manifest says of a file's kind and shape. */
function described(file: ManifestFile | undefined): Omit<SyntheticFile, 'from'> {
  if (!file) throw new Error('the demo run did not make this file');
  const { media_type, width, height, duration_seconds } = file;
  return {
    media_type,
    ...(width !== undefined && { width }),
    ...(height !== undefined && { height }),
    ...(duration_seconds !== undefined && { duration_seconds }),
  };
}

/** A finished run's manifest with one file per step per row, every step done for 10 credits. */
function syntheticManifest(keys: readonly string[], files: Readonly<Record<string, SyntheticFile>>): Manifest {
  const steps = Object.entries(files).map(([step, { from, ...shape }]) => {
    const content = readFileSync(from);
    const sha256 = createHash('sha256').update(content).digest('hex');
    return { step, extension: path.extname(from), file: { ...shape, bytes: content.length, sha256 } };
  });
  const stepsDone = keys.length * steps.length;
  const credits = (used: number) => ({ planned: used, used });
  const entry = (key: string, { step, extension, file }: (typeof steps)[number]): ManifestStep => ({
    step,
    operation: step,
    model: null,
    status: 'done',
    reason: null,
    request_id: `req-${key}-${step}`,
    request_ids: [],
    attempts: 1,
    ambiguous_attempts: 0,
    polls: 0,
    credits: credits(10),
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T00:00:01.000Z',
    duration_ms: 1000,
    files: [
      {
        ...file,
        path: `${key}/${step}${extension}`,
        url: `https://sandbox.invalid/files/${key}/${step}${extension}`,
        url_expires_at: null,
      },
    ],
    extra_files: [],
    error: null,
  });
  return {
    schema_version: 1,
    pipeline: 'many',
    pipeline_file: 'many.yaml',
    run_id: 'run-1000',
    status: 'complete',
    stopped_by: null,
    exit_code: 0,
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T01:00:00.000Z',
    duration_ms: 3_600_000,
    sandbox: true,
    base_url: 'http://127.0.0.1:0',
    totals: {
      credits: {
        planned: stepsDone * 10,
        used: stepsDone * 10,
        estimated: false,
        saved_by_cache: 0,
        by_model: { none: credits(stepsDone * 10) },
        by_step: Object.fromEntries(steps.map(({ step }) => [step, credits(keys.length * 10)])),
        by_row: Object.fromEntries(keys.map((key) => [key, credits(steps.length * 10)])),
      },
      requests: {
        sent: stepsDone,
        planned: stepsDone,
        submits: stepsDone,
        polls: 0,
        other: 0,
        retries: 0,
        ambiguous: 0,
      },
      quota: { plan: 'pro', limit: null, used_24h: null, remaining: null },
      steps: { done: stepsDone, failed: 0, skipped: 0, deferred: 0, cached: 0 },
    },
    rows: keys.map((key) => ({ key, folder: key, steps: steps.map((step) => entry(key, step)) })),
  };
}
