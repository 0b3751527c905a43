/** Pixel operations of the wasm path (RGBA, 8-bit): orientation, flattening, channels, scaling. */
import { swapsAxes } from "./exif.ts";

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
 * Scales RGBA pixels down to `width` x `height` by area averaging (each output pixel is the
 * coverage-weighted mean of the source pixels under it, colours weighted by alpha so transparent
 * pixels do not darken edges). One output row of accumulators at a time: a 1920x16384 page
 * needs no second full-size buffer.
 */
export function downscalePixels(pixels: Pixels, width: number, height: number): Pixels {
  const { data, width: sw, height: sh } = pixels;
  if (width > sw || height > sh || width < 1 || height < 1) {
    throw new RangeError(`cannot scale ${sw}x${sh} down to ${width}x${height}`);
  }
  const columns = coverage(sw, width);
  const out = new Uint8Array(width * height * 4);
  const row = new Float64Array(width * 4);
  const sum = new Float64Array(width * 4);
  const yScale = sh / height;
  for (let y = 0; y < height; y++) {
    sum.fill(0);
    const top = y * yScale;
    const bottom = top + yScale;
    for (let sy = Math.floor(top); sy < Math.min(sh, Math.ceil(bottom)); sy++) {
      const wy = Math.min(bottom, sy + 1) - Math.max(top, sy);
      if (wy <= 0) continue;
      row.fill(0);
      const base = sy * sw * 4;
      for (let x = 0; x < width; x++) {
        const { first, weights } = columns[x];
        for (let k = 0; k < weights.length; k++) {
          const i = base + (first + k) * 4;
          const w = weights[k] * data[i + 3];
          row[x * 4] += data[i] * w;
          row[x * 4 + 1] += data[i + 1] * w;
          row[x * 4 + 2] += data[i + 2] * w;
          row[x * 4 + 3] += w;
        }
      }
      for (let j = 0; j < row.length; j++) sum[j] += row[j] * wy;
    }
    // Source pixels under one output pixel; the alpha sum over it is at most 255 times that.
    const area = (sw / width) * yScale;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const alphaWeight = sum[x * 4 + 3];
      out[o + 3] = Math.round(alphaWeight / area);
      if (alphaWeight === 0) continue;
      out[o] = Math.round(sum[x * 4] / alphaWeight);
      out[o + 1] = Math.round(sum[x * 4 + 1] / alphaWeight);
      out[o + 2] = Math.round(sum[x * 4 + 2] / alphaWeight);
    }
  }
  return { data: out, width, height };
}

/** For each output column, the first source column under it and each one's covered fraction. */
function coverage(sourceSize: number, size: number) {
  const scale = sourceSize / size;
  return Array.from({ length: size }, (_, x) => {
    const left = x * scale;
    const right = left + scale;
    const first = Math.floor(left);
    const last = Math.min(sourceSize, Math.ceil(right));
    const weights = new Float64Array(last - first);
    for (let s = first; s < last; s++) {
      weights[s - first] = Math.min(right, s + 1) - Math.max(left, s);
    }
    return { first, weights };
  });
}
