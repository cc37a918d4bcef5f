/**
 * "Speech" for tts: a real MP3 (MPEG-2 Layer III, 22,050 Hz mono, encoded by lamejs) with one
 * tone per word and pauses at punctuation, so it grows with the text and a person hears its rhythm.
 * Its duration is read back from the frames written, so `duration_seconds` matches the file.
 */
import { Mp3Encoder } from '@breezystack/lamejs';
import { mp3Duration } from '../../media/mp3-duration.js';
import { promptBytes } from './prompt-art.js';

const SAMPLE_RATE = 22_050;
const KBPS = 32;
const WORD_SECONDS = 0.28;
const GAP_SECONDS = 0.08;
const PAUSE_SECONDS = 0.35;

/** The signal: a tone per word, pitch from the voice and the word, silence between words. */
function synthesize(text: string, voice: string, richer: boolean): Int16Array {
  const words = text.split(/\s+/).filter((word) => word !== '');
  const base = 140 + ((promptBytes(voice)[0] ?? 0) % 120);
  const segments: { hz: number; seconds: number }[] = [];
  for (const word of words.length > 0 ? words : ['.']) {
    const hz = base + ((promptBytes(word.toLowerCase())[0] ?? 0) % 80);
    segments.push({ hz, seconds: WORD_SECONDS + Math.min(word.length, 12) * 0.01 }, { hz: 0, seconds: GAP_SECONDS });
    if (/[.,;:!?]$/.test(word)) segments.push({ hz: 0, seconds: PAUSE_SECONDS });
  }
  const total = Math.round(segments.reduce((sum, s) => sum + s.seconds, 0) * SAMPLE_RATE);
  const samples = new Int16Array(total);
  let at = 0;
  for (const { hz, seconds } of segments) {
    const count = Math.round(seconds * SAMPLE_RATE);
    for (let i = 0; i < count && at < total; i++, at++) {
      if (hz === 0) continue;
      const t = i / SAMPLE_RATE;
      const envelope = Math.min(1, i / 200, (count - i) / 200);
      const wave = Math.sin(2 * Math.PI * hz * t) + (richer ? 0.4 * Math.sin(4 * Math.PI * hz * t) : 0);
      samples[at] = Math.round(6000 * envelope * wave);
    }
  }
  return samples;
}

export interface Speech {
  readonly mp3: Uint8Array;
  readonly durationSeconds: number;
}

export function speak(text: string, voice: string, richer: boolean): Speech {
  const samples = synthesize(text, voice, richer);
  const encoder = new Mp3Encoder(1, SAMPLE_RATE, KBPS);
  const chunks: Uint8Array[] = [];
  // lamejs hands back Int8Array views; the bytes are the same.
  const bytes = (chunk: Uint8Array | Int8Array) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  for (let i = 0; i < samples.length; i += 1152)
    chunks.push(bytes(encoder.encodeBuffer(samples.subarray(i, i + 1152))));
  chunks.push(bytes(encoder.flush()));
  const mp3 = Buffer.concat(chunks);
  return { mp3, durationSeconds: mp3Duration(mp3) };
}
