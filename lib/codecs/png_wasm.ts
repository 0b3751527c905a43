/**
 * PNG presets of the wasm path: `medium` is the adaptive-filter encoder, `high` runs oxipng over
 * it, `low` quantises with libimagequant (the library behind pngquant and sharp's palette PNGs).
 * Both wasm modules come through the module graph, like the jSquash codecs.
 */
import initImagequant, { ImageQuantizer } from "libimagequant-wasm/wasm/libimagequant_wasm.js";
import initOxipng, { optimise } from "@jsquash/oxipng/codec/pkg/squoosh_oxipng.js";
import { encodePng } from "./png_encoder.ts";
import { type Pixels, rgbOf } from "./pixels.ts";
import {
  OXIPNG_LEVEL,
  OXIPNG_MAX_PIXELS,
  PALETTE,
  PHOTO_BYTES_PER_PIXEL,
  type PngSettings,
} from "./presets.ts";
import * as modules from "./wasm_modules.js";

let instantiated: Promise<unknown> | undefined;

/** Instantiates libimagequant and oxipng from their compiled modules (never a file or URL). */
export function initPngCodecs(): Promise<unknown> {
  instantiated ??= Promise.all([
    initImagequant({ module_or_path: modules.imagequant }),
    // The single-threaded build: the threaded one would spawn Workers from a URL.
    (initOxipng as (module: WebAssembly.Module) => Promise<unknown>)(modules.oxipng),
  ]);
  return instantiated;
}

/** Encodes upright RGBA pixels as PNG in a preset's mode; alpha is written only when kept. */
export async function encodePngPreset(
  pixels: Pixels,
  options: { png: PngSettings; hasAlpha: boolean },
): Promise<Uint8Array<ArrayBuffer>> {
  await initPngCodecs();
  const { width, height } = pixels;
  const { mode, level } = options.png;
  if (mode === "palette") return encodePalette(pixels, options.hasAlpha, level);
  const data = options.hasAlpha ? pixels.data : rgbOf(pixels.data);
  const channels = options.hasAlpha ? 4 : 3;
  if (mode === "adaptive") return encodePng({ data, width, height, channels }, level);
  if (width * height > OXIPNG_MAX_PIXELS) return encodePng({ data, width, height, channels }, 9);
  // oxipng keeps its input when no trial beats it, so `high` is never larger than `medium`.
  const medium = encodePng({ data, width, height, channels }, 6);
  const photo = medium.length > width * height * PHOTO_BYTES_PER_PIXEL;
  const optimised = optimise(medium, OXIPNG_LEVEL[photo ? "photo" : "flat"], false, false);
  return optimised.length < medium.length ? new Uint8Array(optimised) : medium;
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
