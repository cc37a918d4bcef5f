/**
 * What an output folder already holds for a pipeline, as `plan` sees it before a run: the journal
 * read as it is (no lock taken, nothing written), and each instance looked up in the same
 * content-addressed cache the run will use. A run that is going on at the same time may hold
 * more by the time the next run starts; never less.
 */
import { readFile } from 'node:fs/promises';
import type { Expansion } from '../pipeline/expansion.js';
import type { Selection } from '../select/selection.js';
import { type CacheProbe, probeCache } from './cache-probe.js';
import { FileHasher } from './fingerprint.js';
import { replay } from './journal.js';
import { OutputLayout } from './output-layout.js';
import { forcedInstances } from './redo-story.js';
import { ResultCache } from './result-cache.js';

const NOTHING: CacheProbe = { cached: new Set(), redone: new Set() };

/** What the folder holds of the selected rows' instances; nothing when it holds no journal. */
export async function cachedWork(expansion: Expansion, outRoot: string, selection?: Selection): Promise<CacheProbe> {
  const layout = new OutputLayout(outRoot, expansion.pipeline.name);
  const text = await readFile(layout.journal, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (text === undefined) return NOTHING;
  const state = replay(text);
  return probeCache(expansion, new ResultCache(state, layout), new FileHasher(), {
    includeRow: selection?.rowOrder ? selection.includesRow : undefined,
    forced: forcedInstances(selection?.redo, state),
  });
}
