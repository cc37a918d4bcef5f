/**
 * "Speech" for tts: a real MP3 (MPEG-2 Layer III, 22,050 Hz mono, encoded by lamejs) with one
 * tone per word and pauses at punctuation, so it grows with the text and a person hears its rhythm.
 * Its duration is read back from the frames written, so `duration_seconds` matches the file.
 */
import { Mp3Encoder } from '@breezystack/lamejs';
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

/**
 * Seconds of audio in an MPEG audio stream, from its frame headers (what a player counts).
 * Handles MPEG-1/2/2.5 Layer III with or without padding.
 */
export function mp3Duration(bytes: Uint8Array): number {
  const BITRATES: Record<string, readonly number[]> = {
    '1': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    '2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  };
  const RATES: Record<number, readonly number[]> = {
    3: [44100, 48000, 32000],
    2: [22050, 24000, 16000],
    0: [11025, 12000, 8000],
  };
  let seconds = 0;
  let at = 0;
  while (at + 4 <= bytes.length) {
    const b1 = bytes[at + 1] ?? 0;
    const b2 = bytes[at + 2] ?? 0;
    if (bytes[at] !== 0xff || (b1 & 0xe0) !== 0xe0) {
      at++;
      continue;
    }
    const version = (b1 >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    const bitrate = BITRATES[version === 3 ? '1' : '2']?.[(b2 >> 4) & 15] ?? 0;
    const rate = RATES[version]?.[(b2 >> 2) & 3];
    if (!bitrate || !rate) {
      at++;
      continue;
    }
    const samples = version === 3 ? 1152 : 576;
    const size = Math.floor(((samples / 8) * bitrate * 1000) / rate) + ((b2 >> 1) & 1);
    seconds += samples / rate;
    at += size;
  }
  return Math.round(seconds * 1000) / 1000;
}
