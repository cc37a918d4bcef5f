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
 * Make the background transparent: flood-fill from every edge pixel through neighbours whose
 * colour changes only a little (a smooth background, gradients included) and clear what it
 * reaches; the subject's edges stop it. Real alpha, not a mask in another file.
 */
export async function removeBackground(source: Uint8Array, tolerance = 12): Promise<Uint8Array> {
  const { data, info } = await sharp(source).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  const push = (index: number) => {
    if (seen[index] === 0) {
      seen[index] = 1;
      stack.push(index);
    }
  };
  for (let x = 0; x < width; x++) {
    push(x);
    push((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    push(y * width);
    push(y * width + width - 1);
  }
  const close = (a: number, b: number) =>
    Math.abs((data[a * 4] ?? 0) - (data[b * 4] ?? 0)) +
      Math.abs((data[a * 4 + 1] ?? 0) - (data[b * 4 + 1] ?? 0)) +
      Math.abs((data[a * 4 + 2] ?? 0) - (data[b * 4 + 2] ?? 0)) <=
    tolerance;
  while (stack.length > 0) {
    const index = stack.pop() as number;
    data[index * 4 + 3] = 0;
    const x = index % width;
    if (x > 0 && seen[index - 1] === 0 && close(index, index - 1)) push(index - 1);
    if (x < width - 1 && seen[index + 1] === 0 && close(index, index + 1)) push(index + 1);
    if (index >= width && seen[index - width] === 0 && close(index, index - width)) push(index - width);
    if (index < width * (height - 1) && seen[index + width] === 0 && close(index, index + width)) push(index + width);
  }
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}
