import { describe, expect, it } from 'vitest';
import { classifyImage } from '../../src/pipeline/params/image-input.js';
import { lines, PNG_1X1, pipelineWith, validateYaml } from '../helpers/temp-pipeline.js';

const upscale = (image: string): string => `  - id: up\n    upscale: { image: "${image}", scale: 2 }\n`;

describe('data URI images by content', () => {
  it('refuses data:image/png;base64,AAAA: declared an image, holds three zero bytes', async () => {
    const result = await validateYaml(pipelineWith(upscale('data:image/png;base64,AAAA')));
    expect(lines(result)).toEqual([
      expect.stringContaining(
        "upscale.image: the data URI's data is not a PNG, JPEG, WebP or GIF image (judged by its content, not its declared image/png)",
      ),
    ]);
  });

  it('accepts a real PNG', async () => {
    const result = await validateYaml(pipelineWith(upscale(`data:image/png;base64,${PNG_1X1.toString('base64')}`)));
    expect(lines(result)).toEqual([]);
  });

  it('sniffs the content and refuses data that is not base64', () => {
    expect(classifyImage(`data:image/jpeg;base64,${PNG_1X1.toString('base64')}`, '/')).toMatchObject({
      kind: 'data-uri',
      mediaType: 'image/jpeg',
      content: 'image/png',
    });
    expect(classifyImage('data:image/png;base64,AA!A', '/')).toEqual({
      error: 'is a data URI whose data is not base64 (A-Z, a-z, 0-9, + and /, then up to two =)',
    });
  });
});
