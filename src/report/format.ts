/** Numbers as a report shows them: sizes, durations, and a step's media in a few characters. */
import type { ManifestStep } from '../manifest/manifest-schema.js';

export { count, formatNumber } from '../plan/decide.js';

export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  return `${(value / 1024 / 1024).toFixed(1)} MB`;
}

export function duration(ms: number | null): string {
  if (ms === null) return 'unknown';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return minutes < 60 ? `${minutes} min ${seconds} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "1024x1024 PNG, 1.2 MB" or "6.0 s MP4, 310 KB". */
export function fileLine(file: ManifestStep['files'][number]): string {
  const kind = file.media_type.split('/')[1]?.toUpperCase() ?? file.media_type;
  const shape =
    file.width !== undefined && file.height !== undefined
      ? `${file.width}x${file.height} `
      : file.duration_seconds !== undefined
        ? `${file.duration_seconds.toFixed(1)} s `
        : '';
  return `${shape}${kind === 'MPEG' ? 'MP3' : kind}, ${bytes(file.bytes)}`;
}

/** "row-key / step" as reports name one step instance. */
export function where(row: string, step: ManifestStep): string {
  return `${row} / ${step.step}`;
}

export const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
