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
