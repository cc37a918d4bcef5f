// One measurement of bench/runner.mjs in its own process: the runner (or the stage-by-stage
// baseline) against a sandbox already running elsewhere. Prints JSON on stdout.
import path from 'node:path';
import PQueue from 'p-queue';
import { ApiClient } from '../dist/api/api-client.js';
import { SecretKey } from '../dist/api/secret-key.js';
import { validatePipelineFile } from '../dist/pipeline/validate-pipeline.js';
import { writeRunReport } from '../dist/report/run-report.js';
import { createRunLogger } from '../dist/run/run-logger.js';
import { runPipeline } from '../dist/run/run-pipeline.js';

const [mode, pipelineFile, outDir, baseUrl, key] = process.argv.slice(2);
const { expansion } = await validatePipelineFile(pipelineFile);
if (!expansion) throw new Error('invalid pipeline');
const cpuBefore = process.cpuUsage();
const started = performance.now();
let exit = 0;
let steps = 0;

if (mode === 'runner') {
  const result = await runPipeline(expansion, {
    outRoot: outDir,
    stateDir: path.join(outDir, 'state'),
    fresh: true,
    allowUnpriced: false,
    quotaUsed: 0,
    baseUrl,
    key: new SecretKey(key),
    sandbox: true,
    logger: createRunLogger({
      level: process.env.BENCH_LOG ?? 'silent',
      write: (t) => process.stderr.write(`${(performance.now() - started).toFixed(0)} ${t}`),
      readable: false,
    }),
    progress: 'off',
    interrupt: new AbortController().signal,
    warnings: [],
  });
  // The report.html that `assetline run` writes after the runner is part of the run's cost.
  await writeRunReport(result);
  exit = result.exitCode;
  steps = (result.manifest?.totals.steps.done ?? 0) + (result.manifest?.totals.steps.cached ?? 0);
} else if (mode === 'bare' || mode === 'bare-fetch') {
  // The floor: the same requests and downloads with nothing around them (no journal, no retries,
  // no manifest, no checks) at the same concurrency, each result written where the contract puts
  // it (a folder per row), as one plain write. `bare` sends with undici's request(), the cheapest
  // engine there is; `bare-fetch` with the runner's own engine, the platform fetch over an Agent.
  const { Agent, request } = await import('undici');
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { pipeline } = expansion;
  const agent = new Agent({ connections: pipeline.concurrency.total * 2 });
  const queue = new PQueue({ concurrency: pipeline.concurrency.total });
  const send =
    mode === 'bare'
      ? async (url, init) => {
          const response = await request(url, { ...init, dispatcher: agent });
          return { json: () => response.body.json(), bytes: () => response.body.arrayBuffer() };
        }
      : async (url, init) => {
          const response = await fetch(url, { ...init, dispatcher: agent });
          return { json: () => response.json(), bytes: () => response.arrayBuffer() };
        };
  await mkdir(outDir, { recursive: true });
  await Promise.all(
    Array.from({ length: expansion.counts.rows }, async (_, row) => {
      const instance = expansion.instance(row, 0);
      const answer = await queue.add(async () => {
        const response = await send(`${baseUrl}/v1/generate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: instance.params.model,
            prompt: instance.params.prompt,
            num_images: 1,
            width: 256,
            height: 256,
          }),
        });
        return response.json();
      });
      const file = await send(answer.images[0].url, { method: 'GET' });
      const bytes = Buffer.from(await file.bytes());
      const folder = path.join(outDir, expansion.rowKeys[row]);
      await mkdir(folder);
      await writeFile(path.join(folder, 's0.png'), bytes);
      steps++;
    }),
  );
  await agent.close();
} else {
  // The baseline: each step for every row, then the next step (Promise.all per stage), same client.
  const { pipeline } = expansion;
  const client = new ApiClient({
    baseUrl,
    key: new SecretKey(key),
    api: pipeline.api,
    connections: pipeline.concurrency.total * 2,
  });
  const queue = new PQueue({ concurrency: pipeline.concurrency.total });
  const urls = new Map();
  for (let step = 0; step < pipeline.steps.length; step++) {
    await Promise.all(
      Array.from({ length: expansion.counts.rows }, async (_, row) => {
        const instance = expansion.instance(row, step);
        const params = { ...instance.params };
        if (params.image?.kind === 'output')
          params.image = { kind: 'url', url: urls.get(`${row}/${params.image.step}`) };
        const slot = (request) => queue.add(request);
        const result =
          instance.operation === 'generate'
            ? await client.generate(params, { slot })
            : instance.operation === 'upscale'
              ? await client.upscale(params, { slot })
              : await client.removeBg(params, { slot });
        const url = result.urls?.[0] ?? result.url;
        urls.set(`${row}/${instance.stepId}`, url);
        await client.download(url, path.join(outDir, `${row}-${instance.stepId}.png`), 'image');
        steps++;
      }),
    );
  }
  await client.close();
}
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    ms: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    userMs: cpu.user / 1000,
    systemMs: cpu.system / 1000,
    rssMB: process.resourceUsage().maxRSS / 1024,
    exit,
    steps,
  }),
);
