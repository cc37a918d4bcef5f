/**
 * What an output folder already holds for a pipeline, as `plan` sees it before a run: the
 * journal read as it is (no lock taken, nothing written; only what the cache needs, streamed), and
 * each instance looked up in the same content-addressed cache the run will use, as the plan asks
 * about it. A run that is going on at the same time may hold more by the time the next run
 * starts; never less.
 */
import { readFile } from 'node:fs/promises';
import type { Expansion } from '../pipeline/expansion.js';
import type { Selection } from '../select/selection.js';
import { CacheIndex, journalCacheSource } from './cache-index.js';
import { CacheProbe } from './cache-probe.js';
import { FileHasher } from './fingerprint.js';
import { type JournalState, replay } from './journal.js';
import { OutputLayout } from './output-layout.js';
import { forcedInstances } from './redo-story.js';
import { ResultCache } from './result-cache.js';
import { ResultIndex } from './result-index.js';

const NO_STORIES: JournalState = { instances: new Map(), results: new ResultIndex() };

/** The cache of the pipeline's folder (its shard's) under `outRoot`, with the redos the selection asks for. */
export async function cachedWork(expansion: Expansion, outRoot: string, selection?: Selection): Promise<CacheProbe> {
  const layout = new OutputLayout(outRoot, expansion.pipeline.name, selection?.shard);
  const index = await CacheIndex.read(layout.journal);
  if (!index.hasRedo) {
    return new CacheProbe(
      new ResultCache(index, layout),
      new FileHasher(),
      forcedInstances(selection?.redo, NO_STORIES),
    );
  }
  // A redo an earlier run left unfinished is resolved by the next run: telling one takes each
  // instance's whole story, so a folder with redos in its journal is read in full (rare).
  const state = replay(await readFile(layout.journal, 'utf8'));
  return new CacheProbe(
    new ResultCache(journalCacheSource(state), layout),
    new FileHasher(),
    forcedInstances(selection?.redo, state),
  );
}
