/**
 * What an output folder already holds for a pipeline, as `plan` sees it before a run: the
 * journal read as it is (no lock taken, nothing written; only what the cache needs, streamed), and
 * each instance looked up in the same content-addressed cache the run will use, as the plan asks
 * about it. A run that is going on at the same time may hold more by the time the next run
 * starts; never less.
 */
import { CacheIndex } from './cache-index.js';
import { CacheProbe } from './cache-probe.js';
import { FileHasher } from './fingerprint.js';
import { OutputLayout } from './output-layout.js';
import { ResultCache } from './result-cache.js';

/** The cache of the pipeline's folder under `outRoot`; it covers nothing when there is no journal. */
export async function cachedWork(pipelineName: string, outRoot: string): Promise<CacheProbe> {
  const layout = new OutputLayout(outRoot, pipelineName);
  const index = await CacheIndex.read(layout.journal);
  return new CacheProbe(new ResultCache(index, layout), new FileHasher());
}
