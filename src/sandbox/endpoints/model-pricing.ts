/** Prices the sandbox charges: the catalogue's, and its own table for iota-2 and iota-2-edit. */
import { findModel, QUALITIES, RESOLUTIONS } from '../../catalog/models.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import { type Body, optionalString } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';

const TIERED: Readonly<Record<string, Readonly<Record<string, number>>>> = OPEN_ITEMS.iotaSandboxCredits.sandbox;

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
  const r = resolution ?? OPEN_ITEMS.iotaDefaults.sandbox.resolution;
  const q = quality ?? OPEN_ITEMS.iotaDefaults.sandbox.quality;
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
