/**
 * Rules about the pipeline as a whole: unique step ids, an explicit quota for enterprise,
 * pricing and limits that name real models, per-operation concurrency within the total.
 */
import { ALL_MODELS, findModel, GENERATE_MODELS, QUALITIES, RESOLUTIONS } from '../../catalog/models.js';
import { OPERATIONS } from '../../catalog/operations.js';
import type { PipelineSettings } from '../checked-pipeline.js';
import { didYouMean } from '../did-you-mean.js';
import type { ProblemCollector } from '../problem-collector.js';
import type { PipelineInput } from '../schema/pipeline-schema.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';

/** Operations without models that may be priced by name. */
const PRICED_OPERATIONS = ['remove-bg', 'upscale'] as const;

export function checkPipelineRules(
  input: PipelineInput,
  rawSteps: readonly unknown[],
  settings: PipelineSettings,
  locator: YamlLocator,
  collector: ProblemCollector,
): void {
  uniqueStepIds(rawSteps, locator, collector);
  enterpriseQuota(input, locator, collector);
  pricingKeys(input, locator, collector);
  limitModels(input, locator, collector);
  concurrencyPerOperation(settings, locator, collector);
}

function uniqueStepIds(rawSteps: readonly unknown[], locator: YamlLocator, collector: ProblemCollector): void {
  // Step ids name files (<row>/<step>.png): ids that differ only in case collide on macOS and Windows.
  const seen = new Map<string, { id: string; index: number }>();
  rawSteps.forEach((step, index) => {
    const id = typeof step === 'object' && step !== null ? (step as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return;
    const first = seen.get(id.toLowerCase());
    if (!first) {
      seen.set(id.toLowerCase(), { id, index });
      return;
    }
    const firstAt = locator.locate(['steps', first.index, 'id']);
    const same =
      first.id === id
        ? `step id "${id}" is used twice`
        : `step ids "${first.id}" and "${id}" differ only in case (their files would collide)`;
    collector.error(
      'unique-step-ids',
      `${same}; first at line ${firstAt.line}`,
      locator.locate(['steps', index, 'id']),
    );
  });
}

function enterpriseQuota(input: PipelineInput, locator: YamlLocator, collector: ProblemCollector): void {
  if (input.api?.plan === 'enterprise' && input.api.quota === undefined) {
    collector.error(
      'enterprise-quota',
      'api.plan: enterprise has a custom daily quota: set api.quota to the requests per 24 hours of your contract',
      locator.locate(['api', 'plan']),
    );
  }
}

function pricingKeys(input: PipelineInput, locator: YamlLocator, collector: ProblemCollector): void {
  const known = [...ALL_MODELS.map((model) => model.id), ...PRICED_OPERATIONS];
  for (const [key, entry] of Object.entries(input.pricing ?? {})) {
    const at = locator.locate(['pricing', key], { key: true });
    const model = findModel(key);
    if (!model && !(PRICED_OPERATIONS as readonly string[]).includes(key)) {
      const hint = (OPERATIONS as readonly string[]).includes(key)
        ? `; price a model of ${key} by its ID instead`
        : didYouMean(key, known);
      collector.error('pricing-key', `pricing: unknown model or operation "${key}"${hint}`, at);
      continue;
    }
    const tiered = model !== undefined && 'resolutionAndQuality' in model && model.resolutionAndQuality;
    if (typeof entry === 'object') {
      if (!tiered) {
        collector.error(
          'pricing-table',
          `pricing.${key}: only iota-2 and iota-2-edit are priced by resolution and quality; give one number`,
          at,
        );
        continue;
      }
      for (const tier of Object.keys(entry)) {
        if (!isTierKey(tier)) {
          collector.error(
            'pricing-table',
            `pricing.${key}: expected keys "<resolution>-<quality>" such as "2k-high" (resolution ${RESOLUTIONS.join('/')}/default, quality ${QUALITIES.join('/')}/default), got "${tier}"`,
            locator.locate(['pricing', key, tier], { key: true }),
          );
        }
      }
    } else if (model?.credits !== null && model?.credits !== undefined && model.credits !== entry) {
      collector.warning(
        'pricing-override',
        `pricing.${key}: ${entry} credits overrides the published price of ${model.credits}`,
        at,
      );
    }
  }
}

export function isTierKey(key: string): boolean {
  const [resolution, quality, ...rest] = key.split('-');
  return (
    rest.length === 0 &&
    resolution !== undefined &&
    quality !== undefined &&
    [...RESOLUTIONS, 'default'].includes(resolution) &&
    [...QUALITIES, 'default'].includes(quality)
  );
}

function limitModels(input: PipelineInput, locator: YamlLocator, collector: ProblemCollector): void {
  const ids = GENERATE_MODELS.map((model) => model.id);
  for (const model of Object.keys(input.limits?.dimensions_by_model ?? {})) {
    if (ids.includes(model)) continue;
    collector.error(
      'limits-model',
      `limits.dimensions_by_model: "${model}" is not a generate model${didYouMean(model, ids)}`,
      locator.locate(['limits', 'dimensions_by_model', model], { key: true }),
    );
  }
}

function concurrencyPerOperation(settings: PipelineSettings, locator: YamlLocator, collector: ProblemCollector): void {
  const { total, perOperation } = settings.concurrency;
  for (const [operation, limit] of Object.entries(perOperation)) {
    if (limit <= total) continue;
    collector.warning(
      'concurrency-operation',
      `concurrency.${operation}: ${limit} is above the total of ${total}, so the total is what applies`,
      locator.locate(['concurrency', operation]),
    );
  }
}
