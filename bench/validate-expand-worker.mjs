// One measurement of bench/validate-expand.mjs, in its own process. Prints JSON on stdout.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { validatePipelineFile } from '../dist/pipeline/validate-pipeline.js';
import { preflight } from '../dist/plan/preflight.js';

const [mode, pipeline] = process.argv.slice(2);
const started = performance.now();
let instances = 0;
if (mode === 'parse-csv') {
  instances = parse(readFileSync(path.join(path.dirname(pipeline), 'products.csv'), 'utf8'), { bom: true }).length - 1;
} else if (mode === 'plan') {
  // What `assetline plan` does: validate, expand, price every instance, decide.
  const result = await validatePipelineFile(pipeline);
  if (!result.expansion) throw new Error(`invalid: ${JSON.stringify(result.errors.slice(0, 3))}`);
  const plan = await preflight(result.expansion, {
    allowUnpriced: false,
    quotaUsed: 0,
    stateDir: '.',
    now: Date.now(),
  });
  if (plan.credits.total === 0) throw new Error('nothing priced');
  instances = plan.requests.submits;
} else {
  const result = await validatePipelineFile(pipeline);
  if (!result.expansion) throw new Error(`invalid: ${JSON.stringify(result.errors.slice(0, 3))}`);
  // What plan and run do: render every instance once.
  let checksum = 0;
  for (const instance of result.expansion.instances()) {
    instances++;
    if (instance.operation === 'generate') checksum += instance.params.prompt.length;
  }
  if (checksum === 0) throw new Error('nothing rendered');
}
const seconds = (performance.now() - started) / 1000;
const rssMB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ seconds, rssMB, instances }));
