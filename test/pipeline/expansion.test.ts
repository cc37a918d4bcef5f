/** The expansion: concrete instances with rendered, typed parameters, skips and dependencies. */
import { describe, expect, it } from 'vitest';
import type { Expansion } from '../../src/pipeline/expansion.js';
import { lines, PNG_1X1, validateYaml } from '../helpers/temp-pipeline.js';

async function expand(yaml: string, files: Record<string, string | Uint8Array> = {}): Promise<Expansion> {
  const result = await validateYaml(yaml, files);
  expect(lines(result)).toEqual([]);
  if (!result.expansion) throw new Error('not valid');
  return result.expansion;
}

const CHAIN = `version: 1
name: chain
rows:
  - { sku: A-1, name: Runner, video: yes, photo: a.png }
  - { sku: ../B, name: Walker, video: no, photo: a.png }
row_key: sku
steps:
  - id: hero
    generate: { model: z-image-turbo, prompt: "the \${{ row.name }}", num_images: 2 }
  - id: big
    upscale: { image: "\${{ steps.hero.outputs[1] }}" }
  - id: clip
    when: "\${{ row.video }}"
    video: { model: gamma3-fast-i2v, image: "\${{ steps.big.output }}", prompt: "orbit", duration: 4 }
  - id: clip-voice
    tts: { text: "\${{ row.name }}" }
  - id: after-clip
    edit: { model: eta-edit, image: "\${{ steps.clip.output }}", prompt: p }
  - id: local
    remove-bg: { image: "\${{ row.photo }}" }
`;

describe('expansion', () => {
  it('renders each instance with typed parameters and catalogue defaults', async () => {
    // after-clip uses a video as an image: not allowed, so drop it for this test.
    const yaml = CHAIN.replace(/ {2}- id: after-clip\n.*\n/, '');
    const expansion = await expand(yaml, { 'a.png': PNG_1X1 });
    const instances = [...expansion.instances()];
    expect(instances.map((instance) => instance.key)).toEqual([
      'A-1/hero',
      'A-1/big',
      'A-1/clip',
      'A-1/clip-voice',
      'A-1/local',
      '../B/hero',
      '../B/big',
      '../B/clip-voice',
      '../B/local',
    ]);
    const [hero, big, clip, voice, local] = instances;
    expect(hero).toMatchObject({
      operation: 'generate',
      params: { prompt: 'the Runner', model: 'z-image-turbo', num_images: 2 },
      dependsOn: [],
    });
    expect(big).toMatchObject({
      operation: 'upscale',
      params: { image: { kind: 'output', step: 'hero', index: 1 }, scale: 2 },
      dependsOn: ['hero'],
    });
    expect(clip).toMatchObject({
      operation: 'video',
      params: { mode: 'image-to-video', duration: 4 },
      dependsOn: ['big'],
    });
    expect(voice).toMatchObject({ operation: 'tts', params: { text: 'Runner', model: 'tts-alpha' } });
    expect(local?.operation === 'remove-bg' && local.params.image).toMatchObject({ kind: 'file', shown: 'a.png' });
  });

  it('records why instances are skipped', async () => {
    const yaml = CHAIN.replace('step: clip', 'step: clip').replace(
      /edit: \{ model: eta-edit, image: "\$\{\{ steps.clip.output \}\}", prompt: p \}/,
      'edit: { model: eta-edit, image: "${{ steps.big.output }}", prompt: p }\n    when: "${{ row.video }}"',
    );
    const expansion = await expand(yaml, { 'a.png': PNG_1X1 });
    expect(expansion.counts).toEqual({ rows: 2, steps: 6, instances: 10, skippedWhen: 2, skippedUpstream: 0 });
    expect([...expansion.skipped()].map((skip) => [skip.key, skip.reason])).toEqual([
      ['../B/clip', 'when'],
      ['../B/after-clip', 'when'],
    ]);
  });

  it('skips what depends on a skipped step', async () => {
    const yaml = `version: 1
name: t
rows: [{ k: a, go: "no" }]
row_key: k
steps:
  - id: hero
    when: "\${{ row.go }}"
    generate: { model: eta-v4, prompt: p }
  - id: big
    upscale: { image: "\${{ steps.hero.output }}" }
  - id: cut
    remove-bg: { image: "\${{ steps.big.output }}" }
`;
    const expansion = await expand(yaml);
    expect([...expansion.skipped()].map((skip) => [skip.stepId, skip.reason])).toEqual([
      ['hero', 'when'],
      ['big', 'upstream-skipped'],
      ['cut', 'upstream-skipped'],
    ]);
    expect([...expansion.instances()]).toEqual([]);
  });

  it('names row folders safely, whatever the row key says', async () => {
    const expansion = await expand(CHAIN.replace(/ {2}- id: after-clip\n.*\n/, ''), { 'a.png': PNG_1X1 });
    expect(expansion.rowFolder(0)).toBe('A-1');
    expect(expansion.rowFolder(1)).toBe('___B');
  });

  it('refuses to render a skipped instance', async () => {
    const expansion = await expand('version: 1\nname: t\nsteps:\n  - id: a\n    when: false\n    tts: { text: x }\n');
    expect(() => expansion.instance(0, 0)).toThrow(RangeError);
  });
});
