/**
 * Lossless PNG writer: filtered scanlines (png_filters.ts) deflated with zlib, plus the chunk
 * helpers every PNG path shares. `@jsquash/png` never filters, so this small encoder makes the
 * lossless presets of both paths (whole, or in bands: png_bands.ts). It also writes indexed
 * (palette) PNGs from a quantiser's output, unfiltered as libpng does for palettes.
 */
import { deflateSync } from "node:zlib";
import { concatBytes } from "../bytes.ts";
import { filterRows, type PngInput, type RowFilter } from "./png_filters.ts";
import { crc32, pngChunk } from "./png_chunk.js";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// indexed, truecolour, truecolour with alpha
const COLOR_TYPE = { 1: 3, 3: 2, 4: 6 } as const;

/** Encodes 8-bit RGB(A) or indexed pixels as a PNG at a zlib level (0..9), in one piece. */
export function encodePng(
  image: PngInput,
  level: number,
  filter: RowFilter = "adaptive",
): Uint8Array<ArrayBuffer> {
  // Palette indices are not magnitudes, so predicting them from neighbours rarely helps.
  const filtered = filterRows(image, { filter: image.channels === 1 ? "none" : filter });
  const idat = deflateSync(filtered, { level });
  return pngFile(image, new Uint8Array(idat.buffer, idat.byteOffset, idat.byteLength));
}

/** A PNG file around a zlib stream of filtered scanlines. */
export function pngFile(image: Omit<PngInput, "data">, zlib: Uint8Array): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, image.width);
  view.setUint32(4, image.height);
  ihdr.set([8, COLOR_TYPE[image.channels], 0, 0, 0], 8); // depth, colour, deflate, adaptive, no interlace
  const parts = [
    Uint8Array.from(SIGNATURE),
    pngChunk("IHDR", ihdr),
    ...(image.palette ? paletteChunks(image.palette) : []),
    pngChunk("IDAT", zlib),
    pngChunk("IEND", new Uint8Array(0)),
  ];
  return concatBytes(parts);
}

/** PLTE (RGB per entry) and, when any entry is not opaque, tRNS up to the last such entry. */
function paletteChunks(palette: Uint8Array): Uint8Array[] {
  const entries = palette.length / 4;
  const rgb = new Uint8Array(entries * 3);
  let alphaEntries = 0;
  for (let i = 0; i < entries; i++) {
    rgb.set(palette.subarray(i * 4, i * 4 + 3), i * 3);
    if (palette[i * 4 + 3] !== 255) alphaEntries = i + 1;
  }
  const alpha = Uint8Array.from({ length: alphaEntries }, (_, i) => palette[i * 4 + 3]);
  return [pngChunk("PLTE", rgb), ...(alphaEntries ? [pngChunk("tRNS", alpha)] : [])];
}

// One implementation of chunks and their CRC, shared with the editor's own PNG file.
export { crc32, pngChunk };

/** The PNG without chunks of the given types (e.g. libpng's pHYs, which we do not promise). */
export function withoutPngChunks(
  png: Uint8Array<ArrayBuffer>,
  types: string[],
): Uint8Array<ArrayBuffer> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const kept: Uint8Array[] = [png.subarray(0, 8)];
  for (let offset = 8; offset + 8 <= png.length;) {
    const end = offset + 12 + view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    if (!types.includes(type)) kept.push(png.subarray(offset, end));
    offset = end;
  }
  if (kept.length === 1) return png;
  return concatBytes(kept);
}
