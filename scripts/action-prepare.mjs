// The first step of the GitHub Action (action.yml) after assetline is built: checks the inputs and
// works out where this run writes, so the cache and the artifact steps name the same folder as the
// run. Reads the inputs from INPUT_* variables (set by action.yml's `env:`, never interpolated into
// a script) and writes `name=value` lines to $GITHUB_OUTPUT; prints ::error lines and exits 2 when
// an input is wrong. Run it with the environment of a step:
//
//   INPUT_PIPELINE=pipelines/catalog.yaml INPUT_SHARD=2/4 node scripts/action-prepare.mjs
import { appendFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const TRUE = new Set(['true', 'yes', 'on', '1']);
const FALSE = new Set(['false', 'no', 'off', '0', '']);
/** The pipeline schema's rule for `name:` (it names the output folder). */
const PIPELINE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The inputs, checked, and the paths and names derived from them.
 * @param {Record<string, string | undefined>} env
 * @returns {{ outputs: Record<string, string>, errors: string[], warnings: string[] }}
 */
export function prepare(env) {
  const errors = [];
  const warnings = [];
  const input = (name) => {
    const value = (env[`INPUT_${name}`] ?? '').trim();
    // One line each: a line break would end the value early in $GITHUB_OUTPUT.
    if (/[\r\n]/.test(value)) {
      errors.push(`input ${inputName(name)}: expected one line, got ${value.split(/\r?\n/).length}`);
      return '';
    }
    return value;
  };
  const flag = (name) => {
    const value = input(name).toLowerCase();
    if (TRUE.has(value)) return true;
    if (!FALSE.has(value)) errors.push(`input ${inputName(name)}: expected true or false, got "${input(name)}"`);
    return false;
  };

  const pipeline = input('PIPELINE');
  if (!pipeline) errors.push('input pipeline: expected the path of a pipeline file, got nothing');
  const shard = parseShard(input('SHARD'), errors);
  const maxCredits = input('MAX_CREDITS');
  if (maxCredits && !/^\d+$/.test(maxCredits))
    errors.push(`input max-credits: expected a whole number of credits, got "${maxCredits}"`);
  const timeout = input('TIMEOUT_MINUTES');
  if (timeout && !/^[1-9]\d*$/.test(timeout))
    errors.push(`input timeout-minutes: expected a whole number of minutes, got "${timeout}"`);
  const retention = input('RETENTION_DAYS');
  if (retention && !/^[1-9]\d*$/.test(retention))
    errors.push(`input retention-days: expected a whole number of days, got "${retention}"`);
  const fit = flag('FIT');
  const sandbox = flag('SANDBOX');
  const cache = flag('CACHE');
  const failOnDeferred = input('FAIL_ON_DEFERRED').toLowerCase() || 'auto';
  if (failOnDeferred !== 'auto' && !TRUE.has(failOnDeferred) && !FALSE.has(failOnDeferred))
    errors.push(`input fail-on-deferred: expected auto, true or false, got "${input('FAIL_ON_DEFERRED')}"`);

  const workspace = path.resolve(env.GITHUB_WORKSPACE || process.cwd());
  const workingDirectory = path.resolve(workspace, input('WORKING_DIRECTORY') || '.');
  const name = pipeline ? pipelineName(path.resolve(workingDirectory, pipeline), warnings) : 'pipeline';
  const label = shard ? `${shard.index}-of-${shard.count}` : '';
  const outRoot = path.resolve(workingDirectory, input('OUT') || 'out');
  const runDir = shard ? path.join(outRoot, name, 'shards', label) : path.join(outRoot, name);
  const stateDir = path.resolve(workingDirectory, input('STATE_DIR') || '.assetline');
  const fromWorkspace = (file) => {
    const relative = path.relative(workspace, file);
    if (relative === '') return '.';
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
  };
  // The cache key says which pipeline and which shard: a shard restores only its own state. The
  // part after the prefix is the run's (action.yml adds it), as caches cannot be overwritten.
  const keyPrefix = `${input('CACHE_KEY_PREFIX') || 'assetline'}/${name}/${shard ? `shard-${label}` : 'all'}/`;

  return {
    errors,
    warnings,
    outputs: {
      'pipeline-name': name,
      shard: label,
      'run-dir': fromWorkspace(runDir),
      manifest: fromWorkspace(path.join(runDir, 'manifest.json')),
      'state-dir': fromWorkspace(stateDir),
      'cache-key-prefix': keyPrefix,
      'artifact-name': input('ARTIFACT_NAME') || `assetline-${name}${shard ? `-shard-${label}` : ''}`,
      'summary-file': path.join(env.RUNNER_TEMP || tmpdir(), `assetline-${name}${shard ? `-${label}` : ''}.json`),
      fit: String(fit),
      sandbox: String(sandbox),
      cache: String(cache),
      'fail-on-deferred': String(failOnDeferred === 'auto' ? !fit : TRUE.has(failOnDeferred)),
    },
  };
}

/** `i/n` with 1 <= i <= n, or nothing. */
function parseShard(value, errors) {
  if (!value) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count < 1 || index > count) {
    errors.push(`input shard: expected i/n with 1 <= i <= n (e.g. 2/4), got "${value}"`);
    return undefined;
  }
  return { index, count };
}

/** The pipeline's `name:`, which names its output folder; the file name without its extension when it cannot be read (the run then says why). */
function pipelineName(file, warnings) {
  const stem = path.basename(file).replace(/\.[^.]*$/, '');
  try {
    const name = parse(readFileSync(file, 'utf8'))?.name;
    if (typeof name === 'string' && PIPELINE_NAME.test(name)) return name;
  } catch {
    // Unreadable or not YAML: assetline run reports it with its position.
  }
  warnings.push(`could not read name: from ${file}; naming the cache and the artifact "${stem}"`);
  return PIPELINE_NAME.test(stem) ? stem : 'pipeline';
}

function inputName(name) {
  return name.toLowerCase().replaceAll('_', '-');
}

/** A workflow command's message, escaped so that nothing in it can end the command. */
function commandData(text) {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outputs, errors, warnings } = prepare(process.env);
  for (const warning of warnings) console.log(`::warning title=assetline::${commandData(warning)}`);
  for (const error of errors) console.log(`::error title=assetline::${commandData(error)}`);
  if (errors.length > 0) process.exit(2);
  const lines = Object.entries(outputs).map(([key, value]) => `${key}=${value}\n`);
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, lines.join(''));
  else process.stdout.write(lines.join(''));
}
