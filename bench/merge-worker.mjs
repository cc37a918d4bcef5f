// One measurement of bench/merge.mjs, in its own process. Prints JSON on stdout.
// `merge OUT DIR...`: the library's merge(). `floor OUT DIR...`: hard-link every shard file into
// OUT in a bare loop of synchronous calls, reading nothing (what any merge has to do at least).
import { linkSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { merge } from '../dist/index.js';

const [mode, out, ...dirs] = process.argv.slice(2);
const started = performance.now();
let result;
if (mode === 'merge') {
  const merged = await merge(dirs, { out });
  result = { rows: merged.rows, files: merged.files };
} else {
  let files = 0;
  // Synchronous calls: the fastest way to make many links from Node.
  for (const artifact of dirs) {
    const shards = path.join(artifact, 'bench', 'shards');
    for (const shard of readdirSync(shards)) {
      for (const entry of readdirSync(path.join(shards, shard), { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        mkdirSync(path.join(out, entry.name), { recursive: true });
        for (const name of readdirSync(path.join(shards, shard, entry.name))) {
          linkSync(path.join(shards, shard, entry.name, name), path.join(out, entry.name, name));
          files++;
        }
      }
    }
  }
  result = { files };
}
const seconds = (performance.now() - started) / 1000;
const rssMB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ seconds, rssMB, ...result }));
