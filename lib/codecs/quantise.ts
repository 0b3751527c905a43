/**
 * libimagequant (the library behind pngquant and sharp's palette PNGs) for PNG `low` on the wasm
 * path: choosing the palette of an image, and remapping rows to a palette chosen elsewhere, so
 * the rows of a large image can be remapped on several Workers at once. Its wasm module comes
 * through the module graph like the jSquash codecs.
 */
import initImagequant, {
  ImageQuantizer,
  type QuantizationResult,
} from "libimagequant-wasm/wasm/libimagequant_wasm.js";
import { BANDED_REMAP_MIN_PIXELS, type Palette } from "./palette_bands.ts";
import type { Pixels } from "./pixels.ts";
import { PALETTE } from "./presets.ts";
import * as modules from "./wasm_modules.js";

let instantiated: Promise<unknown> | undefined;

/** Instantiates libimagequant from its compiled module (never a file or URL). */
export function initQuantiser(): Promise<unknown> {
  instantiated ??= initImagequant({ module_or_path: modules.imagequant });
  return instantiated;
}

// Floyd-Steinberg damps an error above max(2.4 x the palette's error, the error of quality 35).
// At quality 69 or better that is the floor, as for a palette given outright (no error), so
// remapping through the given palette dithers exactly as the quantiser's own result does.
const MIN_BANDED_QUALITY = 0.7;

/**
 * The PNG `low` palette of `pixels` (RGBA, made opaque in place unless alpha is kept), and the
 * indices of the whole image remapped to it, unless the rows can be remapped in bands through
 * `remapRows` with the same result (a large image whose palette survives being given outright).
 */
export function quantise(
  pixels: Pixels,
  hasAlpha: boolean,
): { palette: Palette; indices?: Uint8Array } {
  const { width, height } = pixels;
  const rgba = clamped(pixels.data);
  if (!hasAlpha) { for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255; }
  return withResult(chosenPalette(rgba, width, height), (result) => {
    if (
      width * height > BANDED_REMAP_MIN_PIXELS &&
      result.getQuantizationQuality() >= MIN_BANDED_QUALITY
    ) {
      const palette = paletteOf(result);
      if (survivesGiving(palette)) return { palette };
      // Reading the palette rounded the result's colours: remap as if it had not been read.
      return withResult(chosenPalette(rgba, width, height), (again) => remapWhole(again));
    }
    return remapWhole(result);
  });

  function remapWhole(result: QuantizationResult) {
    // Remapping can refine the palette (K-means), and reading the palette rounds its colours:
    // the palette is read after the remap, never before.
    const indices = result.getPaletteIndices(rgba, width, height);
    return { palette: paletteOf(result), indices };
  }
}

/**
 * Rows of RGBA pixels remapped (Floyd-Steinberg, dithering 1.0) to a palette `quantise` gave
 * for banding: the indices point into that palette. The same rows and palette give the same
 * indices in any thread.
 */
export function remapRows(rows: Uint8Array, width: number, palette: Palette): Uint8Array {
  return withResult(givenPalette(palette), (result) => {
    const toGiven = givenIndices(result, palette);
    if (!toGiven) throw new Error("libimagequant changed a given palette colour");
    const indices = result.getPaletteIndices(clamped(rows), width, rows.length / 4 / width);
    for (let i = 0; i < indices.length; i++) indices[i] = toGiven[indices[i]];
    return indices;
  });
}

function quantiseAt(
  rgba: Uint8ClampedArray,
  width: number,
  height: number,
  settings: { quality: number; speed: number },
): QuantizationResult {
  const quantizer = new ImageQuantizer();
  try {
    quantizer.setMaxColors(PALETTE.colours);
    quantizer.setQuality(0, settings.quality);
    quantizer.setSpeed(settings.speed);
    return quantizer.quantizeImage(rgba, width, height);
  } finally {
    quantizer.free();
  }
}

function chosenPalette(rgba: Uint8ClampedArray, width: number, height: number) {
  return quantiseAt(rgba, width, height, PALETTE);
}

/**
 * A quantisation result holding exactly `palette`: an image of its colours quantised at quality
 * 100 keeps every colour (libimagequant takes a histogram that fits the palette as it is), and
 * speed 7 turns the dither map off, so any band is remapped as the rows of a large image are.
 */
function givenPalette(palette: Palette): QuantizationResult {
  return quantiseAt(clamped(palette), palette.length / 4, 1, { quality: 100, speed: 7 });
}

/**
 * For each entry of `result`'s palette, its position in `palette`; undefined unless the result
 * holds every colour of `palette` unchanged, once each (checked, not assumed).
 */
function givenIndices(result: QuantizationResult, palette: Palette): Uint8Array | undefined {
  const own = paletteOf(result);
  const position = indexOf(palette);
  if (own.length !== palette.length || position.size !== palette.length / 4) return undefined;
  const indices = new Uint8Array(own.length / 4);
  for (let i = 0; i < indices.length; i++) {
    const index = position.get(colourAt(own, i));
    if (index === undefined) return undefined;
    indices[i] = index;
  }
  return indices;
}

/** Whether `givenPalette` gives back every colour of `palette` unchanged. */
function survivesGiving(palette: Palette): boolean {
  return withResult(givenPalette(palette), (result) => givenIndices(result, palette) !== undefined);
}

function withResult<T>(result: QuantizationResult, use: (result: QuantizationResult) => T): T {
  try {
    result.setDithering(PALETTE.dither);
    return use(result);
  } finally {
    result.free();
  }
}

function paletteOf(result: QuantizationResult): Palette {
  return Uint8Array.from((result.getPalette() as number[][]).flat());
}

function colourAt(palette: Palette, i: number): number {
  return new DataView(palette.buffer, palette.byteOffset).getUint32(i * 4);
}

function indexOf(palette: Palette): Map<number, number> {
  const position = new Map<number, number>();
  for (let i = palette.length / 4 - 1; i >= 0; i--) position.set(colourAt(palette, i), i);
  return position;
}

function clamped(bytes: Uint8Array): Uint8ClampedArray {
  return new Uint8ClampedArray(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
