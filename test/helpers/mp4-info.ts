/** Duration and frame size of an MP4, read with mp4box (a box parser independent of our encoder). */
import { createFile, type MP4BoxBuffer } from 'mp4box';

export function mp4Info(bytes: Uint8Array): { seconds: number; width: number; height: number; codec: string } {
  let result: { seconds: number; width: number; height: number; codec: string } | undefined;
  const file = createFile();
  file.onReady = (info) => {
    const video = info.videoTracks[0];
    result = {
      seconds: info.duration / info.timescale,
      width: video?.video?.width ?? 0,
      height: video?.video?.height ?? 0,
      codec: video?.codec ?? '',
    };
  };
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as MP4BoxBuffer;
  buffer.fileStart = 0;
  file.appendBuffer(buffer);
  file.flush();
  if (!result) throw new Error('not an MP4 mp4box can read');
  return result;
}
