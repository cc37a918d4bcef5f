/**
 * A picture that follows from a prompt: the same prompt and index always give the same image,
 * different ones differ. A smooth gradient background with one bold subject and a caption, so a
 * person can tell results apart and remove-bg has a real background to remove.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';

export function promptBytes(text: string): Uint8Array {
  return createHash('sha256').update(text).digest();
}

function hsl(hue: number, saturation: number, lightness: number): string {
  return `hsl(${Math.round(hue) % 360}, ${saturation}%, ${lightness}%)`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function promptSvg(prompt: string, index: number, width: number, height: number): string {
  const b = promptBytes(`${prompt}\u0000${index}`);
  const at = (i: number) => b[i % b.length] ?? 0;
  const hue = (at(0) / 255) * 360;
  const min = Math.min(width, height);
  const cx = width * (0.35 + (at(3) / 255) * 0.3);
  const cy = height * (0.35 + (at(4) / 255) * 0.25);
  const rx = min * (0.18 + (at(5) / 255) * 0.12);
  const ry = rx * (0.55 + (at(6) / 255) * 0.5);
  const accents = Array.from({ length: 3 + (at(7) % 3) }, (_, i) => {
    const x = width * (at(8 + i) / 255);
    const y = height * (at(12 + i) / 255) * 0.8;
    const r = min * (0.02 + (at(16 + i) / 255) * 0.05);
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r.toFixed(1)}" fill="${hsl(hue + 180 + i * 25, 70, 60)}"/>`;
  }).join('');
  const caption = escapeXml(prompt.length > 48 ? `${prompt.slice(0, 45)}...` : prompt);
  const fontSize = Math.max(10, Math.round(min / 28));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(hue, 45, 82)}"/><stop offset="1" stop-color="${hsl(hue + 40, 40, 62)}"/></linearGradient></defs>
<rect width="${width}" height="${height}" fill="url(#bg)"/>
${accents}
<ellipse cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" rx="${rx.toFixed(1)}" ry="${ry.toFixed(1)}" fill="${hsl(hue + 150, 65, 38)}" transform="rotate(${(at(2) / 255) * 40 - 20} ${cx.toFixed(1)} ${cy.toFixed(1)})"/>
<rect x="${(cx - rx * 0.6).toFixed(1)}" y="${(cy + ry * 0.5).toFixed(1)}" width="${(rx * 1.2).toFixed(1)}" height="${(ry * 0.35).toFixed(1)}" rx="${(ry * 0.1).toFixed(1)}" fill="${hsl(hue + 200, 30, 20)}"/>
<text x="${(fontSize * 0.8).toFixed(1)}" y="${(height - fontSize * 0.9).toFixed(1)}" font-family="sans-serif" font-size="${fontSize}" fill="${hsl(hue, 30, 18)}">${caption} #${index + 1}</text>
</svg>`;
}

export async function promptPng(prompt: string, index: number, width: number, height: number): Promise<Uint8Array> {
  return sharp(Buffer.from(promptSvg(prompt, index, width, height)))
    .png()
    .toBuffer();
}
