/**
 * The credits one step instance costs, from the catalogue and the pipeline's `pricing:`:
 * generate = model price x num_images; edit, video and tts per model; upscale 100 per request;
 * remove-bg from `pricing:` or the documented default. iota-2 and iota-2-edit have no published
 * price: without `pricing:` for their resolution and quality, the instance is unpriced.
 */
import { findModel, UPSCALE_CREDITS } from '../catalog/models.js';
import { OPEN_ITEMS } from '../catalog/open-items.js';
import type { PriceEntry } from '../pipeline/checked-pipeline.js';
import type { StepInstance } from '../pipeline/expansion.js';

/**
 * published: the reference's table. pricing: the pipeline's `pricing:`. default: our documented
 * guess (remove-bg). Anything but published makes a plan's total an estimate.
 */
export type PriceSource = 'published' | 'pricing' | 'default';

export type InstancePrice =
  | {
      readonly priced: true;
      /** What the totals are grouped by: the model, or the operation when it has none. */
      readonly priceKey: string;
      readonly units: number;
      readonly unitCredits: number;
      readonly credits: number;
      readonly source: PriceSource;
    }
  | {
      readonly priced: false;
      readonly priceKey: string;
      readonly units: number;
      /** The `pricing:` entry that would price it, e.g. "2k-high", "default-default". */
      readonly tier: string;
    };

export function priceInstance(instance: StepInstance, pricing: Readonly<Record<string, PriceEntry>>): InstancePrice {
  switch (instance.operation) {
    case 'generate': {
      const { model, num_images, resolution, quality } = instance.params;
      return modelPrice(model, num_images, pricing, tierOf(resolution, quality));
    }
    case 'edit': {
      const { model, resolution, quality } = instance.params;
      return modelPrice(model, 1, pricing, tierOf(resolution, quality));
    }
    case 'video':
    case 'tts':
      return modelPrice(instance.params.model, 1, pricing, tierOf(undefined, undefined));
    case 'upscale':
      return operationPrice('upscale', pricing, UPSCALE_CREDITS, 'published');
    case 'remove-bg':
      return operationPrice('remove-bg', pricing, OPEN_ITEMS.removeBgCredits.client, 'default');
  }
}

/** The key of a price table entry; "default" stands for a part the step leaves unset. */
export function tierOf(resolution: string | undefined, quality: string | undefined): string {
  return `${resolution ?? 'default'}-${quality ?? 'default'}`;
}

function modelPrice(
  model: string,
  units: number,
  pricing: Readonly<Record<string, PriceEntry>>,
  tier: string,
): InstancePrice {
  const entry = pricing[model];
  const unit =
    typeof entry === 'number'
      ? { credits: entry, source: 'pricing' as const }
      : entry?.[tier] !== undefined
        ? { credits: entry[tier], source: 'pricing' as const }
        : published(model);
  if (!unit) return { priced: false, priceKey: model, units, tier };
  return {
    priced: true,
    priceKey: model,
    units,
    unitCredits: unit.credits,
    credits: unit.credits * units,
    source: unit.source,
  };
}

function published(model: string): { credits: number; source: 'published' } | undefined {
  const credits = findModel(model)?.credits;
  return credits === null || credits === undefined ? undefined : { credits, source: 'published' };
}

function operationPrice(
  operation: 'upscale' | 'remove-bg',
  pricing: Readonly<Record<string, PriceEntry>>,
  fallback: number,
  fallbackSource: PriceSource,
): InstancePrice {
  const entry = pricing[operation];
  const [credits, source] = typeof entry === 'number' ? [entry, 'pricing' as const] : [fallback, fallbackSource];
  return { priced: true, priceKey: operation, units: 1, unitCredits: credits, credits, source };
}
