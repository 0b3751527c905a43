/**
 * PNG presets of the wasm path: the lossless presets are the band encoder of png_bands.ts (in
 * this thread; the exporter may spread the bands over several workers instead), `low` quantises
 * with libimagequant (the library behind pngquant and sharp's palette PNGs), whose wasm module
 * comes through the module graph like the jSquash codecs.
 */
import initImagequant, { ImageQuantizer } from "libimagequant-wasm/wasm/libimagequant_wasm.js";
import { encodeBands } from "./png_bands.ts";
import { encodePng } from "./png_encoder.ts";
import type { PngInput } from "./png_filters.ts";
import { type Pixels, rgbOf } from "./pixels.ts";
import { PALETTE, type PngSettings } from "./presets.ts";
import * as modules from "./wasm_modules.js";

let instantiated: Promise<unknown> | undefined;

/** Instantiates libimagequant from its compiled module (never a file or URL). */
export function initPngCodecs(): Promise<unknown> {
  instantiated ??= initImagequant({ module_or_path: modules.imagequant });
  return instantiated;
}

/** The pixels a lossless PNG is written from: RGBA, or RGB when alpha is not kept. */
export function losslessInput(pixels: Pixels, hasAlpha: boolean): PngInput {
  const data = hasAlpha ? pixels.data : rgbOf(pixels.data);
  return { data, width: pixels.width, height: pixels.height, channels: hasAlpha ? 4 : 3 };
}

/** Encodes upright RGBA pixels as PNG in a preset's mode; alpha is written only when kept. */
export async function encodePngPreset(
  pixels: Pixels,
  options: { png: PngSettings; hasAlpha: boolean },
): Promise<Uint8Array<ArrayBuffer>> {
  await initPngCodecs();
  const { png } = options;
  if (png.mode === "palette") return encodePalette(pixels, options.hasAlpha, png.level);
  return encodeBands(losslessInput(pixels, options.hasAlpha), png);
}

/** libimagequant palette (<= 256 colours, dithered), written as an indexed PNG. */
function encodePalette(
  pixels: Pixels,
  hasAlpha: boolean,
  level: number,
): Uint8Array<ArrayBuffer> {
  const { width, height } = pixels;
  const rgba = new Uint8ClampedArray(
    pixels.data.buffer,
    pixels.data.byteOffset,
    pixels.data.byteLength,
  );
  if (!hasAlpha) { for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255; }
  const quantizer = new ImageQuantizer();
  try {
    quantizer.setMaxColors(PALETTE.colours);
    quantizer.setQuality(0, PALETTE.quality);
    quantizer.setSpeed(PALETTE.speed);
    const result = quantizer.quantizeImage(rgba, width, height);
    try {
      result.setDithering(PALETTE.dither);
      const indices = result.getPaletteIndices(rgba, width, height);
      const entries = result.getPalette() as [number, number, number, number][];
      const palette = Uint8Array.from(entries.flat());
      return encodePng({ data: indices, width, height, channels: 1, palette }, level);
    } finally {
      result.free();
    }
  } finally {
    quantizer.free();
  }
}
