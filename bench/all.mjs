// `npm run bench`: every benchmark, one after another, each in its own process. A benchmark over
// its target does not stop the others: all run, then a summary says which were over, and the
// exit code is 1 when any was.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = [
  ['start-up', 'startup.mjs'],
  ['validate and plan', 'validate-expand.mjs'],
  ['plan of a done folder', 'plan-cached.mjs'],
  ['sandbox throughput', 'sandbox-throughput.mjs'],
  ['runner', 'runner.mjs'],
  ['shards', 'shards.mjs'],
  ['report', 'report.mjs'],
  ['merge', 'merge.mjs'],
  ['interrupts', 'interrupt.mjs'],
];
const here = path.dirname(fileURLToPath(import.meta.url));

const results = [];
for (const [name, file] of BENCHMARKS) {
  console.log(`\n== ${name} (bench/${file})`);
  const { status } = spawnSync(process.execPath, [path.join(here, file)], { stdio: 'inherit' });
  results.push([name, status]);
}
console.log('\n== summary');
for (const [name, status] of results)
  console.log(`  ${name.padEnd(20)} ${status === 0 ? 'within target' : `OVER TARGET or failed (exit ${status})`}`);
process.exitCode = results.some(([, status]) => status !== 0) ? 1 : 0;
