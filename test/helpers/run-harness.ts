/** Run a pipeline in-process against an in-process sandbox, with everything a test looks at (report.html too). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SecretKey } from '../../src/api/secret-key.js';
import { formatProblem } from '../../src/pipeline/problem.js';
import { validatePipelineFile } from '../../src/pipeline/validate-pipeline.js';
import { writeAssetsCsv } from '../../src/report/assets-csv.js';
import { writeRunReport } from '../../src/report/run-report.js';
import { createRunLogger } from '../../src/run/run-logger.js';
import { type RunOptions, type RunResult, runPipeline } from '../../src/run/run-pipeline.js';
import { resolveSelection, type SelectionFlags } from '../../src/select/selection.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { assertPublishedManifestFile } from './manifest-validator.js';
import { DEMO_KEY } from './sandbox-http.js';
import { tempDir } from './temp-pipeline.js';

export interface Workspace {
  readonly dir: string;
  readonly pipeline: string;
  readonly out: string;
  readonly state: string;
  readonly logs: string[];
}

export function workspace(yaml: string, files: Readonly<Record<string, string | Uint8Array>> = {}): Workspace {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  writeFileSync(path.join(dir, 'pipeline.yaml'), yaml);
  return {
    dir,
    pipeline: path.join(dir, 'pipeline.yaml'),
    out: path.join(dir, 'out'),
    state: path.join(dir, 'state'),
    logs: [],
  };
}

export async function runIn(
  ws: Workspace,
  sandbox: Sandbox,
  options: Partial<Omit<RunOptions, 'key'>> & { apiKey?: string } & SelectionFlags = {},
): Promise<RunResult> {
  const validated = await validatePipelineFile(ws.pipeline, { displayPath: 'pipeline.yaml' });
  if (!validated.expansion) throw new Error(`invalid pipeline:\n${validated.errors.map(formatProblem).join('\n')}`);
  const { apiKey, rows, redo, shard, ...overrides } = options;
  const key = apiKey ?? DEMO_KEY;
  const result = await runPipeline(validated.expansion, {
    outRoot: ws.out,
    stateDir: ws.state,
    fresh: false,
    allowUnpriced: false,
    baseUrl: sandbox.baseUrl,
    key: new SecretKey(key),
    sandbox: true,
    logger: createRunLogger({ level: 'debug', write: (line) => ws.logs.push(line), readable: false }),
    progress: 'off',
    interrupt: new AbortController().signal,
    warnings: validated.warnings.map(formatProblem),
    now: () => sandbox.now(),
    selection: resolveSelection(validated.expansion, { rows, redo, shard }),
    ...overrides,
  });
  // Every manifest a test run writes must fit the schema we publish.
  if (result.manifestPath) assertPublishedManifestFile(result.manifestPath);
  // As the run command does after the runner.
  await writeRunReport(result);
  if (result.keptManifestPath && result.manifestPath)
    await writeAssetsCsv(result.keptManifestPath, path.dirname(result.manifestPath), validated.expansion);
  return result;
}

/** Loopback polling that does not make a test wait 5 s per poll (jobs take 0.1 s in these sandboxes). */
export const FAST_VIDEO = [
  'api:',
  '  plan: pro',
  '  video: { poll_interval_seconds: 0.05, expected_seconds: 0.2, timeout_seconds: 5 }',
  '  retry: { base_seconds: 0.01, cap_seconds: 0.05 }',
  '',
].join('\n');
