/**
 * PNG presets of the wasm path: the lossless presets are the band encoder of png_bands.ts (in
 * this thread; the exporter may spread the bands over several workers instead), `low` quantises
 * with libimagequant (quantise.ts) and writes an indexed PNG, a large image in the palette bands
 * of palette_bands.ts (which the exporter may spread out the same way).
 */
import { type DeflatedBand, encodeBands } from "./png_bands.ts";
import { encodePng } from "./png_encoder.ts";
import {
  deflateIndexRows,
  joinPaletteBands,
  type Palette,
  type PaletteBandRequest,
  splitPaletteBands,
} from "./palette_bands.ts";
import { losslessInput, type Pixels } from "./pixels.ts";
import type { PngSettings } from "./presets.ts";
import { initQuantiser, quantise, remapRows } from "./quantise.ts";

/** Instantiates libimagequant from its compiled module (never a file or URL). */
export function initPngCodecs(): Promise<unknown> {
  return initQuantiser();
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

/**
 * A quantised image: its palette and the pixels to remap in bands (palette_bands.ts, here or on
 * several workers), or, when its rows cannot be remapped in bands, the finished PNG.
 */
export type Quantised = { image: Pixels; palette: Palette } | { png: Uint8Array<ArrayBuffer> };

/** The PNG `low` of upright RGBA pixels, quantised with libimagequant (<= 256 colours). */
export async function quantisePng(
  pixels: Pixels,
  options: { hasAlpha: boolean; level: number },
): Promise<Quantised> {
  await initPngCodecs();
  const { palette, indices } = quantise(pixels, options.hasAlpha);
  if (!indices) return { image: pixels, palette };
  const { width, height } = pixels;
  return { png: encodePng({ data: indices, width, height, channels: 1, palette }, options.level) };
}

/** libimagequant palette (<= 256 colours, dithered), written as an indexed PNG. */
async function encodePalette(
  pixels: Pixels,
  hasAlpha: boolean,
  level: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const quantised = await quantisePng(pixels, { hasAlpha, level });
  if ("png" in quantised) return quantised.png;
  return encodePaletteBands(quantised.image, quantised.palette, level);
}

/** Remaps one band of a palette PNG to its palette and deflates it (in whichever thread). */
export function deflatePaletteBand(band: PaletteBandRequest): DeflatedBand {
  return deflateIndexRows(remapRows(band.rows, band.width, band.palette), band);
}

/** Every band in this thread, one after another: the same bytes as spreading them out. */
function encodePaletteBands(
  image: Pixels,
  palette: Palette,
  level: number,
): Uint8Array<ArrayBuffer> {
  const bands = splitPaletteBands(image, palette, level).map(deflatePaletteBand);
  return joinPaletteBands(image, palette, bands);
}
