/**
 * Benchmark media (`media: placeholder`): one tiny valid file per kind, made once, so a sandbox
 * serving thousands of results a second spends nothing on rendering them.
 */
import sharp from 'sharp';
import { renderClip } from './clip.js';
import { type Speech, speak } from './speech.js';

let png: Promise<Uint8Array> | undefined;
let mp4: Promise<Uint8Array> | undefined;
let speech: Speech | undefined;

export function placeholderSpeech(): Speech {
  speech ??= speak('placeholder', 'alloy', false);
  return speech;
}

export function placeholder(mediaType: 'image/png' | 'audio/mpeg' | 'video/mp4'): Promise<Uint8Array> {
  if (mediaType === 'audio/mpeg') return Promise.resolve(placeholderSpeech().mp3);
  if (mediaType === 'video/mp4') {
    mp4 ??= renderClip({ prompt: 'placeholder', startImage: undefined, aspectRatio: '16:9', seconds: 1 });
    return mp4;
  }
  png ??= sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  return png;
}
