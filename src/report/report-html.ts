/**
 * report.html: one self-contained file beside the assets (no network needed to view it) with what
 * needs attention first (failures, possible double charges), the cost tables, then a gallery per
 * row. Media are linked by relative path, never embedded, and load lazily: images with
 * loading="lazy", audio and video only once scrolled near, so a report of 1,000 rows opens fast.
 * The page is made piece by piece (a run writes it as it goes, never as one string). A big run
 * stopped early shows the steps it never started as one count, not a card each, and the by-row
 * credits table shows the costliest rows only.
 */
import nodePath from 'node:path';
import type { Manifest, ManifestStep } from '../manifest/manifest-schema.js';
import { type CostLine, neverStarted, type RunSummary, type StepRef } from '../manifest/manifest-summary.js';
import { ASSETS_CSV } from './assets-csv.js';
import { bytes, capitalize, count, duration, fileLine, formatNumber } from './format.js';
import { headlineFigures, lossText, statusLine } from './summary-text.js';

/** Past this many never-started steps, they are one "Not started" section instead of cards. */
export const NOT_STARTED_CARDS = 1000;
/** Rows shown in the by-row credits table (the costliest first). */
export const BY_ROW_SHOWN = 1000;
/**
 * Rows in the gallery at most: a page of 100,000 rows is 100 MB no browser shows. What needs
 * attention is listed above the gallery whatever its size, and every file is in the manifest.
 */
export const GALLERY_ROWS = 5000;

/** A row of the gallery: its place in the manifest (the anchor), its key and its steps. */
export interface GalleryRow {
  readonly index: number;
  readonly key: string;
  readonly steps: readonly ManifestStep[];
}

/**
 * The whole page as one string: for `assetline report --html` and tests. `base` is the output
 * folder as a link from the page (see {@link folderHref}): every manifest path (the assets) and
 * assets.csv are relative to that folder, so a page written elsewhere than in it (runs/<run-id>.html)
 * still finds them.
 */
export function reportHtml(summary: RunSummary<Manifest>, notes: readonly string[] = [], base = ''): string {
  const rows = summary.manifest.rows.map((row, index) => ({ index, key: row.key, steps: row.steps }));
  const collapse = collapsesNotStarted(summary);
  const shown = rows.slice(0, GALLERY_ROWS).map((row) => galleryRow(row, collapse, base));
  return [reportTop(summary, notes, base), ...shown, reportEnd(summary)].join('');
}

/**
 * The page in pieces, its gallery from `rows` (the manifest's rows, in order) as they come; `base`
 * as for {@link reportHtml}.
 */
export async function* reportHtmlChunks(
  summary: RunSummary,
  rows: Iterable<GalleryRow> | AsyncIterable<GalleryRow>,
  notes: readonly string[] = [],
  base = '',
): AsyncGenerator<string> {
  yield reportTop(summary, notes, base);
  const collapse = collapsesNotStarted(summary);
  let shown = 0;
  for await (const row of rows) {
    // The rest is not even read.
    if (shown++ === GALLERY_ROWS) break;
    yield galleryRow(row, collapse, base);
  }
  yield reportEnd(summary);
}

/** Many steps never started (a big run stopped early) are one count, not a card each. */
export function collapsesNotStarted(summary: RunSummary): boolean {
  return summary.notStarted.steps > NOT_STARTED_CARDS;
}

/** Everything before the gallery's rows; `base` is the output folder (where assets.csv is), from the page. */
function reportTop(summary: RunSummary, notes: readonly string[], base: string): string {
  const { manifest, credits } = summary;
  const title = `assetline: ${manifest.pipeline}: ${manifest.status}`;
  const exit = manifest.exit_code === null ? '' : ` (exit ${manifest.exit_code})`;
  const body: string[] = [];
  body.push(
    `<header><h1>${esc(manifest.pipeline)} <span class="status ${manifest.status}">${manifest.status}${exit}</span></h1>`,
    `<p>${esc(capitalize(statusLine(manifest)))}. Run <code>${esc(manifest.run_id)}</code>, started ${esc(manifest.started_at)}, took ${duration(manifest.duration_ms)}${manifest.sandbox ? ', against the sandbox' : ''}.</p>`,
    ...notes.map((note) => `<p class="note">${esc(note)}</p>`),
    `<p>Every row's files and status as a sheet: <a href="${esc(base + ASSETS_CSV)}">assets.csv</a> (written by each run).</p>`,
    '<dl class="totals">',
    ...headlineFigures(summary).map(([label, value]) => stat(label, value)),
    '</dl></header>',
  );
  body.push(
    refTable(
      `Failed (${formatNumber(summary.failures.length)})`,
      'failures',
      summary.failures,
      ['Row', 'Step', 'Model', 'Error', 'Message', 'Request'],
      (ref) => {
        const error = ref.step.error;
        return [
          rowLink(ref),
          esc(ref.step.step),
          esc(ref.step.model ?? ref.step.operation),
          error ? `<code>${esc(error.code)}</code>${error.status === null ? '' : ` HTTP ${error.status}`}` : '',
          esc(error?.message ?? ''),
          esc(error?.request_id ?? ref.step.request_id ?? ''),
        ];
      },
    ),
    refTable(
      `May have been charged twice (${formatNumber(summary.ambiguous.length)})`,
      'ambiguous',
      summary.ambiguous,
      ['Row', 'Step', 'Unanswered attempts', 'Request'],
      (ref) => [
        rowLink(ref),
        esc(ref.step.step),
        formatNumber(ref.step.ambiguous_attempts),
        esc(ref.step.request_id ?? ''),
      ],
    ),
    refTable(
      `Lost: ${formatNumber(summary.credits.lost)} credits paid for results never saved`,
      'lost',
      summary.lost,
      ['Row', 'Step', 'Credits lost', 'Why'],
      (ref) => [rowLink(ref), esc(ref.step.step), formatNumber(ref.step.credits.lost ?? 0), esc(lossText(ref.step))],
    ),
    refTable(
      `Paid results of abandoned video jobs (${formatNumber(summary.extraFiles.length)})`,
      'extra',
      summary.extraFiles,
      ['Row', 'Step', 'Files'],
      (ref) => [
        rowLink(ref),
        esc(ref.step.step),
        ref.step.extra_files.map((file) => mediaLink(file.path, file.path, base)).join(', '),
      ],
    ),
  );
  if (summary.reasons.size > 0) {
    body.push('<section><h2>Not run</h2><table><thead><tr><th>Why</th><th>Steps</th></tr></thead><tbody>');
    for (const [reason, howMany] of summary.reasons)
      body.push(`<tr><td>${esc(reason)}</td><td class="num">${formatNumber(howMany)}</td></tr>`);
    body.push('</tbody></table></section>');
  }
  body.push(
    '<section id="credits"><h2>Credits</h2><div class="tables">',
    costTable('Model', credits.byModel),
    costTable('Step', credits.byStep),
    '</div>',
    `<details><summary>By row (${formatNumber(credits.byRow.length)})</summary>${byRowTable(credits.byRow)}</details>`,
    '</section>',
  );
  body.push(`<section id="gallery"><h2>Gallery (${count(summary.rows, 'row')})</h2>`);
  return `${pageHead(title)}${body.join('\n')}\n`;
}

/** One row of the gallery (empty when collapsing leaves it nothing to show). */
function galleryRow(row: GalleryRow, collapse: boolean, base: string): string {
  const steps = collapse ? row.steps.filter((step) => !neverStarted(step)) : row.steps;
  if (collapse && steps.length === 0) return '';
  const cards = steps.map((step) => `${card(row.key, step, base)}\n`).join('');
  return `<section class="row" id="row-${row.index}"><h3>${esc(row.key)}</h3><div class="cards">\n${cards}</div></section>\n`;
}

/** After the gallery's rows: a word on those left out, if any, and the page's end. */
function reportEnd(summary: RunSummary): string {
  const more =
    summary.rows > GALLERY_ROWS
      ? `<p class="note">The gallery shows at most the first ${formatNumber(GALLERY_ROWS)} of the ${formatNumber(summary.rows)} rows; every row is in <code>manifest.json</code>, each file with its path.</p>\n`
      : '';
  return `${more}${collapsesNotStarted(summary) ? notStartedSection(summary) : ''}</section>\n<script>${LAZY_MEDIA}</script>\n</body>\n</html>\n`;
}

function pageHead(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="assetline">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
`;
}

/** The never-started steps of a big run stopped early, as one count with their reasons. */
function notStartedSection(summary: RunSummary): string {
  const { notStarted } = summary;
  const reasons = [...notStarted.reasons]
    .map(
      ([reason, howMany]) => `<tr><td>deferred: ${esc(reason)}</td><td class="num">${formatNumber(howMany)}</td></tr>`,
    )
    .join('');
  const why = [...notStarted.reasons.keys()].map(esc).join(', ');
  return (
    `<section class="not-started" id="not-started"><h3>Not started: ${count(notStarted.rows, 'row')} (${why})</h3>` +
    `<p>${count(notStarted.steps, 'step')} never sent, shown here as a count rather than a card each; the next run resumes them.</p>` +
    `<table><thead><tr><th>Why</th><th>Steps</th></tr></thead><tbody>${reasons}</tbody></table></section>\n`
  );
}

/** The costliest rows, and how many more there are: a table of 100,000 rows helps nobody. */
function byRowTable(lines: readonly CostLine[]): string {
  if (lines.length <= BY_ROW_SHOWN) return costTable('Row', lines);
  const more = `<p>... and ${formatNumber(lines.length - BY_ROW_SHOWN)} more rows: see the manifest's <code>totals.credits.by_row</code>.</p>`;
  return `${costTable('Row', lines.slice(0, BY_ROW_SHOWN))}${more}`;
}

function card(row: string, step: ManifestStep, base: string): string {
  const caption = (detail: string) =>
    `<figcaption><b>${esc(step.step)}</b> <span class="status ${step.status}">${step.status}</span><br>${esc(step.model ?? step.operation)} · ${detail}`;
  // A step's credits pay for all its files: shown once, on the first.
  const head = caption(`${formatNumber(step.credits.used)} of ${formatNumber(step.credits.planned)} credits`);
  if (step.status === 'failed' || step.error) {
    const error = step.error;
    const text = error
      ? `<code>${esc(error.code)}</code>${error.status === null ? '' : ` HTTP ${error.status}`}: ${esc(error.message)}`
      : 'failed';
    return `<figure class="card ${step.status}"><div class="error"><p>${text}</p></div>${head}</figcaption></figure>`;
  }
  if (step.files.length === 0) {
    const why = step.reason ? `${step.status}: ${step.reason}` : 'no file';
    return `<figure class="card ${step.status}"><div class="empty">${esc(why)}</div>${head}</figcaption></figure>`;
  }
  return step.files
    .map((file, i) => {
      const label = `${row} / ${step.step}${step.files.length > 1 ? ` #${i + 1}` : ''}`;
      const text = i === 0 ? head : caption(`file ${i + 1} of ${step.files.length}`);
      return `<figure class="card ${step.status}">${media(file, label, base)}${text}<br>${esc(fileLine(file))}</figcaption></figure>`;
    })
    .join('');
}

function media(file: ManifestStep['files'][number], label: string, base: string): string {
  const href = assetHref(file.path, base);
  if (!href) return `<div class="empty">file outside the output folder: ${esc(file.path)}</div>`;
  const [kind] = file.media_type.split('/');
  if (kind === 'image') {
    const size = file.width && file.height ? ` width="${file.width}" height="${file.height}"` : '';
    return `<a class="thumb" href="${href}"><img src="${href}" alt="${esc(label)}" loading="lazy" decoding="async"${size}></a>`;
  }
  if (kind === 'audio')
    return `<div class="player"><audio controls preload="none" data-lazy src="${href}" aria-label="${esc(label)}"></audio></div>`;
  if (kind === 'video')
    return `<video class="thumb" controls playsinline preload="none" data-lazy src="${href}" aria-label="${esc(label)}"></video>`;
  return `<div class="empty">${mediaLink(file.path, `${file.media_type}, ${bytes(file.bytes)}`, base)}</div>`;
}

function mediaLink(path: string, text: string, base: string): string {
  const href = assetHref(path, base);
  return href ? `<a href="${href}">${esc(text)}</a>` : esc(text);
}

/**
 * A manifest path (relative to the output folder) as a link from the page, `base` being the output
 * folder from the page; undefined when the path could lead outside the output folder (absolute,
 * `..`, a scheme): a tampered manifest must not point the page elsewhere.
 */
export function assetHref(path: string, base = ''): string | undefined {
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes(':')))
    return undefined;
  return base + segments.map(encodeURIComponent).join('/');
}

/**
 * The folder `to` as a link from a page in the folder `from`: '' for the same folder, '../' from
 * runs/, each segment URL-encoded and ending in '/'.
 */
export function folderHref(from: string, to: string): string {
  const relative = nodePath.relative(from, to);
  if (relative === '') return '';
  return `${relative.split(nodePath.sep).map(encodeURIComponent).join('/')}/`;
}

function rowLink(ref: StepRef): string {
  return `<a href="#row-${ref.rowIndex}">${esc(ref.row)}</a>`;
}

function stat(name: string, value: string): string {
  return `<div><dt>${esc(name)}</dt><dd>${esc(value)}</dd></div>`;
}

function costTable(title: string, lines: readonly CostLine[]): string {
  const rows = lines
    .map(
      (line) =>
        `<tr><td>${esc(line.name)}</td><td class="num">${formatNumber(line.planned)}</td><td class="num">${formatNumber(line.used)}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>${title}</th><th>Planned</th><th>Used</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function refTable(
  title: string,
  id: string,
  refs: readonly StepRef[],
  header: readonly string[],
  cells: (ref: StepRef) => readonly string[],
): string {
  if (refs.length === 0) return '';
  const rows = refs
    .map(
      (ref) =>
        `<tr>${cells(ref)
          .map((cell) => `<td>${cell}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return `<section id="${id}" class="attention"><h2>${esc(title)}</h2><table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></section>`;
}

const SPECIAL = /[&<>"']/;
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(text: string): string {
  // Most text (keys, models, paths) has nothing to escape: one test instead of five passes.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c) : text;
}

// Audio and video start with preload="none" and fetch their metadata once near the viewport:
// a thousand players asking for their files at once would stall the page. Raising preload starts
// the load by itself; calling load() as well would fetch each file twice.
const LAZY_MEDIA = `
const lazy = document.querySelectorAll('[data-lazy]');
const wake = (el) => { el.removeAttribute('data-lazy'); el.preload = 'metadata'; };
if ('IntersectionObserver' in window) {
  const seen = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) { seen.unobserve(entry.target); wake(entry.target); }
  }, { rootMargin: '400px' });
  lazy.forEach((el) => seen.observe(el));
} else lazy.forEach(wake);
`;

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; font-family: system-ui, sans-serif; }
body { margin: 0 auto; max-width: 1400px; padding: 1rem 1.5rem 4rem; line-height: 1.4; }
h1 { margin-bottom: .25rem; } h2 { margin-top: 2rem; border-bottom: 1px solid var(--line); }
.note { border-left: 4px solid #d90; padding: .25rem .75rem; }
.totals { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: .5rem 1.5rem; }
.totals dt { color: var(--muted); font-size: .85rem; } .totals dd { margin: 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; } th, td { border-bottom: 1px solid var(--line); padding: .25rem .6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.tables { display: flex; flex-wrap: wrap; gap: 2rem; }
.attention h2 { color: #c22; }
.status { font-size: .75rem; padding: .1rem .4rem; border-radius: .3rem; background: #8883; vertical-align: middle; }
.status.complete, .status.done { background: #2a63; } .status.cached { background: #28c3; }
.status.failed, .status.partial { background: #d223; } .status.deferred, .status.stopped, .status.interrupted { background: #d903; }
.row { content-visibility: auto; contain-intrinsic-size: auto 340px; }
.cards { display: flex; flex-wrap: wrap; gap: 1rem; }
.card { margin: 0; width: 200px; font-size: .8rem; }
.card.failed { outline: 2px solid #d22; }
.thumb { display: block; width: 200px; height: 200px; object-fit: contain; }
/* The checkerboard shows transparency, so only behind images: an opaque video gets black bars. */
a.thumb { background-color: #fff; background-size: 16px 16px;
  background-image: conic-gradient(#ccc 25%, #fff 0 50%, #ccc 0 75%, #fff 0); }
video.thumb { background: #000; }
.thumb img { width: 100%; height: 100%; object-fit: contain; }
.player { display: flex; align-items: center; height: 200px; } .player audio { width: 200px; }
.empty, .error { display: flex; align-items: center; justify-content: center; width: 200px; height: 200px; padding: .5rem; box-sizing: border-box; background: #8882; text-align: center; overflow: auto; }
.error { background: #d222; }
`;
