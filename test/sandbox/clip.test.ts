import { describe, expect, it } from 'vitest';
import { renderClip } from '../../src/sandbox/media/clip.js';
import { mp4Info } from '../helpers/mp4-info.js';

describe('video clips', () => {
  it('come out whole when several are rendered at once', async () => {
    const clips = await Promise.all(
      ['16:9', '9:16', '1:1', '16:9'].map((aspectRatio, i) =>
        renderClip({ prompt: `clip ${i}`, startImage: undefined, aspectRatio, seconds: 2 }),
      ),
    );
    expect(clips.map((clip) => mp4Info(clip))).toEqual([
      { seconds: 2, width: 480, height: 270, codec: expect.stringMatching(/^avc1/) },
      { seconds: 2, width: 270, height: 480, codec: expect.stringMatching(/^avc1/) },
      { seconds: 2, width: 360, height: 360, codec: expect.stringMatching(/^avc1/) },
      { seconds: 2, width: 480, height: 270, codec: expect.stringMatching(/^avc1/) },
    ]);
  });
});
