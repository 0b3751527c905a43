/** Pixel operations of the wasm path (RGBA, 8-bit): orientation, flattening, channels, scaling. */
import { AreaScaler } from "./area_scaler.ts";
import { swapsAxes } from "./exif.ts";
import type { PngInput } from "./png_filters.ts";

export interface Pixels {
  /** RGBA, 4 bytes per pixel, rows top to bottom. */
  data: Uint8Array;
  width: number;
  height: number;
}

/** Applies an EXIF orientation (1..8) so the pixels are upright, as viewers show them. */
export function orientPixels(pixels: Pixels, orientation: number): Pixels {
  if (orientation <= 1 || orientation > 8) return pixels;
  const { width: w, height: h } = pixels;
  const src = words(pixels.data);
  const outW = swapsAxes(orientation) ? h : w;
  const outH = swapsAxes(orientation) ? w : h;
  const out = new Uint32Array(w * h);
  // For each output pixel, the stored pixel it shows: out(x, y) = in(sx, sy).
  const source: (x: number, y: number) => number = {
    2: (x: number, y: number) => y * w + (w - 1 - x),
    3: (x: number, y: number) => (h - 1 - y) * w + (w - 1 - x),
    4: (x: number, y: number) => (h - 1 - y) * w + x,
    5: (x: number, y: number) => x * w + y,
    6: (x: number, y: number) => (h - 1 - x) * w + y,
    7: (x: number, y: number) => (h - 1 - x) * w + (w - 1 - y),
    8: (x: number, y: number) => x * w + (w - 1 - y),
  }[orientation]!;
  for (let y = 0, i = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++, i++) out[i] = src[source(x, y)];
  }
  return { data: new Uint8Array(out.buffer), width: outW, height: outH };
}

/** Composites onto opaque white in place; JPEG has no alpha, and hidden colours differ by path. */
export function flattenOnWhite(data: Uint8Array): void {
  for (let i = 0; i < data.length; i += 4) {
    const alpha = data[i + 3];
    if (alpha === 255) continue;
    const white = 255 * (255 - alpha);
    data[i] = Math.round((data[i] * alpha + white) / 255);
    data[i + 1] = Math.round((data[i + 1] * alpha + white) / 255);
    data[i + 2] = Math.round((data[i + 2] * alpha + white) / 255);
    data[i + 3] = 255;
  }
}

/** Whether any pixel of RGBA `data` is not fully opaque. */
export function hasTransparency(data: Uint8Array): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}

/** The pixels a lossless PNG is written from: RGBA, or RGB when alpha is not kept. */
export function losslessInput(pixels: Pixels, hasAlpha: boolean): PngInput {
  const data = hasAlpha ? pixels.data : rgbOf(pixels.data);
  return { data, width: pixels.width, height: pixels.height, channels: hasAlpha ? 4 : 3 };
}

/** RGB bytes from RGBA (alpha dropped), for inputs that cannot carry transparency. */
export function rgbOf(data: Uint8Array): Uint8Array {
  const out = new Uint8Array((data.length / 4) * 3);
  for (let i = 0, o = 0; i < data.length; i += 4, o += 3) {
    out[o] = data[i];
    out[o + 1] = data[i + 1];
    out[o + 2] = data[i + 2];
  }
  return out;
}

function words(data: Uint8Array): Uint32Array {
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

/**
 * Scales RGBA pixels down to `width` x `height` by area averaging (area_scaler.ts), one source
 * row at a time: a 1920x16384 page needs no second full-size buffer.
 */
export function downscalePixels(pixels: Pixels, width: number, height: number): Pixels {
  const { data, width: sw, height: sh } = pixels;
  const scaler = new AreaScaler(pixels, width, height);
  for (let sy = 0; sy < sh; sy++) scaler.push(data.subarray(sy * sw * 4, (sy + 1) * sw * 4));
  return scaler.result();
}
