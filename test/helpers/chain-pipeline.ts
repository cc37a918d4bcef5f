/** The pipelines the runner's integration tests share: the two-row chain of every operation, and one video. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { FAST_VIDEO } from './run-harness.js';

export const CHAIN = `version: 1
name: chain
${FAST_VIDEO}rows:
  - { sku: A1, name: Runner }
  - { sku: B2, name: Walker }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "photo of the \${{ row.name }}", width: 256, height: 256, num_images: 2 }
  - id: recolor
    edit: { model: eta-edit, image: "\${{ steps.hero.outputs[1] }}", prompt: "yellow laces" }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}", scale: 2 }
  - id: cutout
    remove-bg: { image: "\${{ steps.big.output }}" }
  - id: teaser
    video: { model: gamma3-fast-i2v, image: "\${{ steps.hero.output }}", prompt: orbit, duration: 4 }
  - id: voice
    tts: { text: "Meet the \${{ row.name }}" }
`;
// Per row: z-image-turbo 100 x 2 + eta-edit 200 + upscale 100 + remove-bg 100 + gamma3-fast-i2v 2,000 + tts-alpha 10 = 2,610.

/** Every file under `dir`, relative and sorted. */
export function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** One text-to-video step: with a slow sandbox, a job still running when the run stops. */
export const ONE_CLIP = `version: 1
name: clip
${FAST_VIDEO}steps:
  - id: teaser
    video: { model: gamma3-fast, prompt: "a slow orbit", duration: 4 }
`;
