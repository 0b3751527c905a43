/**
 * CMYK and YCCK JPEGs (print files, Photoshop exports). MozJPEG's wasm build cannot convert them
 * to RGBA, so the wasm path decodes them with jpeg-js; both paths turn ink into RGB with the
 * same plain formula browsers use for a CMYK JPEG without a profile (docs/export.md).
 */
import jpeg from "jpeg-js";
import { MAX_PIXELS } from "./presets.ts";
import type { Pixels } from "./pixels.ts";

/** Decodes a four-component JPEG (Adobe CMYK or YCCK) to 8-bit RGBA (stored orientation). */
export function decodeCmykJpeg(bytes: Uint8Array): Pixels {
  const image = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    // The header check already refused larger images; this is defence in depth.
    maxResolutionInMP: MAX_PIXELS / 1e6,
    tolerantDecoding: false,
  });
  return { data: image.data, width: image.width, height: image.height };
}

/**
 * RGBA from ink amounts (C, M, Y, K, 0 = no ink): R = 255 - (C (1 - K/255) + K), the formula
 * jpeg-js applies, so the sharp path gives the same pixels from libvips' CMYK samples.
 */
export function rgbaFromInk(cmyk: Uint8Array): Uint8Array {
  const out = new Uint8Array(cmyk.length);
  for (let i = 0; i < cmyk.length; i += 4) {
    const k = cmyk[i + 3];
    const keep = 1 - k / 255;
    out[i] = 255 - Math.min(255, cmyk[i] * keep + k);
    out[i + 1] = 255 - Math.min(255, cmyk[i + 1] * keep + k);
    out[i + 2] = 255 - Math.min(255, cmyk[i + 2] * keep + k);
    out[i + 3] = 255;
  }
  return out;
}
