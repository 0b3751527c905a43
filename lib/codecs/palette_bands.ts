/**
 * A palette PNG (`low`) of a large image written in horizontal bands that can run on different
 * threads: each band's RGBA rows are remapped to the one palette chosen for the whole image (by
 * quantise.ts, in a worker), written unfiltered as libpng writes palettes, and deflated on their
 * own, ending on a zlib sync flush so the parts join into one stream (as the lossless bands of
 * png_bands.ts do). The split depends on the image size alone, so the bytes are the same however
 * many threads ran them. No codec here: the request thread splits and joins.
 */
import { bandCount, bandOf, type DeflatedBand, joinBands, zlibPart } from "./png_bands.ts";
import { filterRows } from "./png_filters.ts";
import type { Pixels } from "./pixels.ts";

/** A palette as libimagequant chose it: RGBA, 4 bytes per entry, at most 256 entries. */
export type Palette = Uint8Array;

// libimagequant remaps an image above 2000x2000 with plain Floyd-Steinberg, its palette left as
// chosen; a smaller one gets an edge-aware dither map and a last K-means pass over the palette,
// which a band remapped on its own would redo differently. Only larger images go in bands.
export const BANDED_REMAP_MIN_PIXELS = 2000 * 2000;

/** One band, ready to post to a worker (plain data, the rows copied out of the image). */
export interface PaletteBandRequest {
  /** RGBA rows, 4 bytes per pixel. */
  rows: Uint8Array;
  width: number;
  palette: Palette;
  level: number;
  /** The last band ends the deflate stream; the others end on a sync flush. */
  last: boolean;
}

/**
 * The bands of an image, about a megapixel each (as the lossless bands). Each starts on an even
 * row: Floyd-Steinberg scans every other row backwards, so a band's rows run in the direction
 * they run in the whole image; only the error carried over the first row restarts.
 */
export function splitPaletteBands(
  image: Pixels,
  palette: Palette,
  level: number,
): PaletteBandRequest[] {
  const { width, height, data } = image;
  const count = bandCount(width, height);
  const rowAt = (i: number) => i === count ? height : 2 * Math.floor((height * i) / count / 2);
  return Array.from({ length: count }, (_, i) => ({
    // A copy (a Node Buffer's slice would share memory), so each band can be transferred.
    rows: data.slice(rowAt(i) * width * 4, rowAt(i + 1) * width * 4),
    width,
    palette,
    level,
    last: i === count - 1,
  }));
}

/** Deflates one band's palette indices (`width` per row) as unfiltered scanlines. */
export function deflateIndexRows(
  indices: Uint8Array,
  band: { width: number; level: number; last: boolean },
): DeflatedBand {
  const { width } = band;
  const rows = { data: indices, width, height: indices.length / width, channels: 1 as const };
  // Filter type None before each row: palette indices are not magnitudes to predict.
  const scanlines = filterRows(rows, { filter: "none" });
  return bandOf("none", scanlines, zlibPart(scanlines, band.level, band.last));
}

/** The palette PNG from its deflated bands, in order. */
export function joinPaletteBands(
  image: { width: number; height: number },
  palette: Palette,
  bands: DeflatedBand[],
): Uint8Array<ArrayBuffer> {
  return joinBands({ width: image.width, height: image.height, channels: 1, palette }, bands);
}
