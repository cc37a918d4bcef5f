/**
 * Prices the sandbox charges: the catalogue's published ones, and its own invented table for
 * iota-2 and iota-2-edit, whose prices the reference does not publish ("varies by resolution and
 * quality"). The client has no price for them (a pipeline gives one with `pricing:`), so the
 * table is the sandbox's alone, not the catalogue's.
 */
import { findModel, QUALITIES, RESOLUTIONS } from '../../catalog/models.js';
import { type Body, optionalString } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';

/** Credits per image (iota-2) or edit (iota-2-edit) by "<resolution>-<quality>": one grid for both. */
const IOTA_GRID: Readonly<Record<string, number>> = {
  '1k-low': 150,
  '1k-medium': 250,
  '1k-high': 400,
  '2k-low': 300,
  '2k-medium': 500,
  '2k-high': 800,
  '4k-low': 600,
  '4k-medium': 1000,
  '4k-high': 1600,
};

/** The models priced by resolution and quality, with their prices. */
const TIERED: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'iota-2': IOTA_GRID,
  'iota-2-edit': IOTA_GRID,
};

/** What a request to a tiered model leaves unset. */
const TIER_DEFAULTS = { resolution: '1k', quality: 'medium' } as const;

/** "<resolution>-<quality>" for models that take them (defaults 1k, medium), else undefined. */
export function resolutionAndQuality(body: Body, model: string): string | undefined {
  const resolution = optionalString(body, 'resolution');
  const quality = optionalString(body, 'quality');
  const tiered = TIERED[model] !== undefined;
  if (!tiered) {
    if (resolution !== undefined || quality !== undefined) {
      throw new SandboxError(
        'invalid_parameter',
        `resolution and quality are accepted only with iota-2 and iota-2-edit, not ${model}`,
      );
    }
    return undefined;
  }
  const r = resolution ?? TIER_DEFAULTS.resolution;
  const q = quality ?? TIER_DEFAULTS.quality;
  if (!(RESOLUTIONS as readonly string[]).includes(r))
    throw new SandboxError('invalid_parameter', `resolution must be 1k, 2k or 4k, got "${r}"`);
  if (!(QUALITIES as readonly string[]).includes(q))
    throw new SandboxError('invalid_parameter', `quality must be low, medium or high, got "${q}"`);
  return `${r}-${q}`;
}

export function unitCredits(model: string, tier: string | undefined): number {
  const published = findModel(model)?.credits;
  if (published !== null && published !== undefined) return published;
  const price = tier === undefined ? undefined : TIERED[model]?.[tier];
  if (price === undefined) throw new Error(`sandbox has no price for ${model} ${tier ?? ''}`);
  return price;
}
