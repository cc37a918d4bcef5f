/** What edit, upscale and remove-bg do to a real image. */
import sharp from 'sharp';
import { promptBytes } from './prompt-art.js';

/** A visible change driven by the instruction: a hue turn, a tinted band and a frame. */
export async function editImage(source: Uint8Array, instruction: string): Promise<Uint8Array> {
  const image = sharp(source);
  const { width = 512, height = 512 } = await image.metadata();
  const b = promptBytes(instruction);
  const hue = 60 + ((b[0] ?? 0) % 240);
  const band = Math.max(4, Math.round(height * 0.12));
  const frame = Math.max(2, Math.round(Math.min(width, height) * 0.02));
  const overlay = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect x="${frame / 2}" y="${frame / 2}" width="${width - frame}" height="${height - frame}" fill="none" stroke="hsl(${hue},80%,55%)" stroke-width="${frame}"/>
<rect y="${height - band}" width="${width}" height="${band}" fill="hsl(${hue},80%,50%)" fill-opacity="0.55"/>
</svg>`;
  return image
    .modulate({ hue, saturation: 1.2 })
    .composite([{ input: Buffer.from(overlay) }])
    .png()
    .toBuffer();
}

export async function upscaleImage(source: Uint8Array, scale: number): Promise<Uint8Array> {
  const image = sharp(source);
  const { width = 1, height = 1 } = await image.metadata();
  return image
    .resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'lanczos3' })
    .png()
    .toBuffer();
}

/**
 * Make the background transparent. The background is modelled from the image's edges (each edge
 * line median-smoothed, then blended across the picture as a Coons patch, which reproduces a
 * gradient background), and a flood from the edges clears every connected pixel close to that
 * model. The subject, however soft its edge after an upscale, differs from the model and stays.
 */
export async function removeBackground(source: Uint8Array, tolerance = 48): Promise<Uint8Array> {
  const { data, info } = await sharp(source).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const at = (x: number, y: number, c: number) => data[(y * width + x) * 4 + c] ?? 0;
  const edge = (length: number, pick: (i: number, c: number) => number) =>
    [0, 1, 2].map((c) => medianLine(Array.from({ length }, (_, i) => pick(i, c))));
  const top = edge(width, (x, c) => at(x, 0, c));
  const bottom = edge(width, (x, c) => at(x, height - 1, c));
  const left = edge(height, (y, c) => at(0, y, c));
  const right = edge(height, (y, c) => at(width - 1, y, c));
  const model = (x: number, y: number, c: number): number => {
    const u = width === 1 ? 0 : x / (width - 1);
    const v = height === 1 ? 0 : y / (height - 1);
    const t = top[c] as number[];
    const b = bottom[c] as number[];
    const l = left[c] as number[];
    const r = right[c] as number[];
    const corners =
      (1 - u) * (1 - v) * (t[0] ?? 0) +
      u * (1 - v) * (t[width - 1] ?? 0) +
      (1 - u) * v * (b[0] ?? 0) +
      u * v * (b[width - 1] ?? 0);
    return (1 - v) * (t[x] ?? 0) + v * (b[x] ?? 0) + (1 - u) * (l[y] ?? 0) + u * (r[y] ?? 0) - corners;
  };
  const isBackground = (index: number): boolean => {
    const x = index % width;
    const y = Math.floor(index / width);
    let distance = 0;
    for (let c = 0; c < 3; c++) distance += Math.abs((data[index * 4 + c] ?? 0) - model(x, y, c));
    return distance <= tolerance;
  };
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  const visit = (index: number) => {
    if (seen[index] === 0 && isBackground(index)) {
      seen[index] = 1;
      stack.push(index);
    } else {
      seen[index] = 1;
    }
  };
  for (let x = 0; x < width; x++) {
    visit(x);
    visit((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    visit(y * width);
    visit(y * width + width - 1);
  }
  while (stack.length > 0) {
    const index = stack.pop() as number;
    data[index * 4 + 3] = 0;
    const x = index % width;
    if (x > 0) visit(index - 1);
    if (x < width - 1) visit(index + 1);
    if (index >= width) visit(index - width);
    if (index < width * (height - 1)) visit(index + width);
  }
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** A running median over 15 samples: an edge line without the small things that touch it. */
function medianLine(values: readonly number[]): number[] {
  const half = 7;
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - half), i + half + 1).sort((a, b) => a - b);
    return window[Math.floor(window.length / 2)] ?? 0;
  });
}
