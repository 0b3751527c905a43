/**
 * Synthetic test images, generated (never downloaded): screenshot-like pages with text-like
 * stripes, flat panels and a photo block; an image with transparency; helpers to wrap pixels in
 * PNG/JPEG/WebP files and to add an EXIF orientation.
 */
import { concatBytes } from "../lib/bytes.ts";
import { encodePng, pngChunk } from "../lib/codecs/png_encoder.ts";
import type { Pixels } from "../lib/codecs/pixels.ts";
import { encodeWasm } from "../lib/codecs/wasm.ts";
import type { ImageKind } from "../lib/codecs/presets.ts";

type Rgb = [number, number, number];

/** A page-like RGBA image: nav bar, sidebar (when wide), text lines, links, a button, a photo. */
export function screenshotPixels(width: number, height: number, seed = 7): Pixels {
  const data = new Uint8Array(width * height * 4).fill(255);
  const random = mulberry32(seed);
  const fill = (x0: number, y0: number, w: number, h: number, [r, g, b]: Rgb) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
      for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) {
        const i = (y * width + x) * 4;
        data[i] = r, data[i + 1] = g, data[i + 2] = b;
      }
    }
  };
  const text = (x0: number, y0: number, maxWidth: number, color: Rgb, bg: Rgb) => {
    let x = x0;
    while (x < x0 + maxWidth - 20) {
      const letters = 2 + Math.floor(random() * 9);
      for (let l = 0; l < letters && x < x0 + maxWidth; l++, x += 7) glyph(x, y0, color, bg);
      x += 5;
    }
  };
  // A letter: a few strokes on a 6x10 cell, with one anti-aliased (blended) column.
  const glyph = (x0: number, y0: number, color: Rgb, bg: Rgb) => {
    const shape = Math.floor(random() * 16);
    for (let dx = 0; dx < 6; dx++) {
      for (let dy = 0; dy < 10; dy++) {
        const on = (dx === 0 && shape & 1) || (dx === 4 && shape & 2) || (dy === 4 && shape & 4) ||
          (dy === 9 && shape & 8) || (dx === 2 && dy > 2);
        const edge = dx === 5 && dy % 3 === 0;
        if (!on && !edge) continue;
        const t = on ? 1 : 0.35;
        fill(
          x0 + dx,
          y0 + dy,
          1,
          1,
          color.map((c, k) => Math.round(c * t + bg[k] * (1 - t))) as Rgb,
        );
      }
    }
  };
  const navHeight = Math.round(height * 0.06);
  fill(0, 0, width, navHeight, [36, 41, 47]);
  text(16, Math.round(navHeight / 2) - 5, Math.min(400, width - 32), [240, 246, 252], [36, 41, 47]);
  const sidebar = width > 800 ? Math.round(width * 0.14) : 0;
  if (sidebar) {
    fill(0, navHeight, sidebar, height - navHeight, [246, 248, 250]);
    fill(sidebar, navHeight, 1, height - navHeight, [208, 215, 222]);
    for (let y = navHeight + 24; y < height - 20; y += 32) {
      text(20, y, sidebar - 40, [87, 96, 106], [246, 248, 250]);
    }
  }
  const left = sidebar + 24;
  const photo = { w: Math.round(width * 0.35), h: Math.round(height * 0.4) };
  const photoX = width - photo.w - 24;
  for (let y = navHeight + 24, line = 0; y < height - 16; y += 22, line++) {
    const overlapsPhoto = y < navHeight + 24 + photo.h + 8 && photoX > left + 200;
    const lineWidth = (overlapsPhoto ? photoX - 24 : width - 24) - left;
    const link = line % 7 === 3;
    text(left, y, lineWidth * (0.55 + random() * 0.45), link ? [9, 105, 218] : [31, 35, 40], [
      255,
      255,
      255,
    ]);
    if (line % 11 === 10) y += 14; // paragraph break
  }
  fill(left, height - 60, 120, 32, [31, 136, 61]);
  text(left + 14, height - 50, 92, [255, 255, 255], [31, 136, 61]);
  for (let y = 0; y < photo.h; y++) { // a smooth gradient with grain, like a photo
    for (let x = 0; x < photo.w; x++) {
      const i = ((navHeight + 24 + y) * width + photoX + x) * 4;
      const grain = (random() - 0.5) * 18;
      data[i] = clamp(90 + (x / photo.w) * 120 + grain);
      data[i + 1] = clamp(140 + Math.sin(y / 17) * 40 + grain);
      data[i + 2] = clamp(200 - (y / photo.h) * 110 + grain);
    }
  }
  return { data, width, height };
}

/** A photo-like RGBA image: overlapping smooth colour fields, soft shapes and sensor-like grain. */
export function photoPixels(width: number, height: number, seed = 3): Pixels {
  const data = new Uint8Array(width * height * 4);
  const random = mulberry32(seed);
  const blobs = Array.from({ length: 12 }, () => ({
    x: random() * width,
    y: random() * height,
    r: (0.1 + random() * 0.3) * Math.min(width, height),
    colour: [random() * 255, random() * 255, random() * 255],
  }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const sky = [70 + 120 * (y / height), 110 + 90 * Math.sin(x / 211), 180 - 60 * (y / height)];
      for (const blob of blobs) {
        const weight = Math.exp(-(((x - blob.x) ** 2 + (y - blob.y) ** 2) / blob.r ** 2));
        for (let c = 0; c < 3; c++) sky[c] = sky[c] * (1 - weight) + blob.colour[c] * weight;
      }
      const grain = (random() - 0.5) * 14;
      data[i] = clamp(sky[0] + grain);
      data[i + 1] = clamp(sky[1] + grain);
      data[i + 2] = clamp(sky[2] + grain);
      data[i + 3] = 255;
    }
  }
  return { data, width, height };
}

/** Transparent background (hidden colour green), a half-transparent red disc, an opaque square. */
export function alphaPixels(width = 320, height = 240): Pixels {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const inDisc = (x - width / 3) ** 2 + (y - height / 2) ** 2 < (height / 3) ** 2;
      const inSquare = x > width * 0.6 && x < width * 0.9 && y > height * 0.2 && y < height * 0.5;
      const pixel = inSquare ? [20, 40, 200, 255] : inDisc ? [220, 30, 30, 128] : [0, 255, 0, 0];
      data.set(pixel, i);
    }
  }
  return { data, width, height };
}

/** Pixels as a file of the given kind (PNG via the adaptive encoder, JPEG/WebP via jSquash). */
export async function encodeFixture(
  pixels: Pixels,
  kind: ImageKind,
  hasAlpha = false,
): Promise<Uint8Array> {
  const copy = { ...pixels, data: pixels.data.slice() };
  if (kind === "png") {
    return encodePng({
      ...copy,
      channels: hasAlpha ? 4 : 3,
      data: hasAlpha ? copy.data : rgb(copy.data),
    }, 6);
  }
  return await encodeWasm(copy, { format: kind, preset: "high", hasAlpha });
}

/** The same file with an EXIF orientation tag (JPEG APP1, PNG eXIf, WebP VP8X + EXIF). */
export function withOrientation(kind: ImageKind, file: Uint8Array, orientation: number) {
  const tiff = Uint8Array.from([
    0x4d,
    0x4d,
    0,
    42,
    0,
    0,
    0,
    8,
    0,
    1,
    0x01,
    0x12,
    0,
    3,
    0,
    0,
    0,
    1,
    0,
    orientation,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  if (kind === "jpeg") {
    const app1 = concatBytes([
      Uint8Array.from([0xff, 0xe1, 0, tiff.length + 8]),
      ascii("Exif\0\0"),
      tiff,
    ]);
    return concatBytes([file.subarray(0, 2), app1, file.subarray(2)]);
  }
  if (kind === "png") {
    return concatBytes([file.subarray(0, 33), pngChunk("eXIf", tiff), file.subarray(33)]);
  }
  // Simple lossy WebP only: RIFF header, VP8X (EXIF flag), the VP8 chunk, then the EXIF chunk.
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const width = view.getUint16(26, true) & 0x3fff;
  const height = view.getUint16(28, true) & 0x3fff;
  const vp8x = new Uint8Array(10);
  vp8x[0] = 0x08;
  vp8x.set(uint24(width - 1), 4);
  vp8x.set(uint24(height - 1), 7);
  const body = concatBytes([
    ascii("WEBP"),
    riffChunk("VP8X", vp8x),
    file.subarray(12),
    riffChunk("EXIF", tiff),
  ]);
  return concatBytes([ascii("RIFF"), uint32le(body.length), body]);
}

function riffChunk(type: string, data: Uint8Array): Uint8Array {
  return concatBytes([ascii(type), uint32le(data.length), data, new Uint8Array(data.length & 1)]);
}

function rgb(data: Uint8Array): Uint8Array {
  return data.filter((_, i) => i % 4 !== 3);
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function uint24(n: number): Uint8Array {
  return Uint8Array.from([n & 255, (n >> 8) & 255, (n >> 16) & 255]);
}

function uint32le(n: number): Uint8Array {
  return Uint8Array.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255]);
}

function clamp(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
