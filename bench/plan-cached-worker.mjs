// One step of bench/plan-cached.mjs, in its own process. `make`: an output folder in which every
// row is done, as a run leaves it (a file per result and a journal that records each download,
// with the fingerprints the cache computes). `plan`: what `assetline plan` does, against it or an
// empty folder. Prints JSON on stdout.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validatePipelineFile } from '../dist/pipeline/validate-pipeline.js';
import { planFile } from '../dist/plan/plan-file.js';
import { fingerprint, sha256 } from '../dist/run/fingerprint.js';
import { OutputLayout } from '../dist/run/output-layout.js';

const [mode, pipeline, out] = process.argv.slice(2);
const started = performance.now();
let instances = 0;
let cached = 0;
if (mode === 'make') {
  const { expansion } = await validatePipelineFile(pipeline);
  if (!expansion) throw new Error('invalid pipeline');
  const layout = new OutputLayout(out, expansion.pipeline.name);
  const outputs = new Map();
  const lines = [];
  let folder = '';
  for (const instance of expansion.instances()) {
    instances++;
    const image = instance.params.image;
    const images = image?.kind === 'output' ? { image: outputs.get(`${instance.rowKey}/${image.step}`) } : {};
    const bytes = `${instance.key}\n`;
    const file = {
      path: `${expansion.rowFolder(instance.rowIndex)}/${instance.stepId}.png`,
      index: 0,
      sha256: sha256(bytes),
      bytes: Buffer.byteLength(bytes),
      media_type: 'image/png',
      url: `https://files.example/${instance.key}.png`,
    };
    if (folder !== path.dirname(file.path)) {
      folder = path.dirname(file.path);
      mkdirSync(path.join(layout.dir, folder), { recursive: true });
    }
    writeFileSync(path.join(layout.dir, file.path), bytes);
    outputs.set(instance.key, { kind: 'bytes', sha256: file.sha256 });
    const work = fingerprint(instance, images);
    // What a run journals for each step: the intent before the request, the answer, the download.
    const t = Date.now();
    const requestId = `req_${instances.toString(36)}`;
    lines.push(
      JSON.stringify({
        type: 'intent',
        t,
        key: instance.key,
        fingerprint: work,
        generation: 0,
        idempotency_key: `al-${sha256(instance.key).slice(0, 40)}`,
        operation: instance.operation,
        model: instance.params.model ?? null,
        credits_planned: 100,
      }),
      JSON.stringify({
        type: 'answered',
        t,
        key: instance.key,
        request_id: requestId,
        urls: [file.url],
        credits_used: 100,
      }),
      JSON.stringify({ type: 'downloaded', t, key: instance.key, fingerprint: work, files: [file] }),
    );
  }
  writeFileSync(layout.journal, `${lines.join('\n')}\n`);
} else {
  const { plan } = await planFile(pipeline, { cwd: path.dirname(pipeline), allowUnpriced: false, quotaUsed: 0, out });
  if (!plan) throw new Error('invalid pipeline');
  instances = plan.instances;
  cached = plan.cached.instances;
}
const seconds = (performance.now() - started) / 1000;
const rssMB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ seconds, rssMB, instances, cached }));
