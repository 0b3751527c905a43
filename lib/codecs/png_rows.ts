/**
 * Reading the scanlines of an 8-bit RGB or RGBA PNG without a decoder: the header, the zlib
 * stream of its IDAT chunks, and reversing one row's filter. Used where a whole decode would be
 * waste: the blank-frame test, which stops at the first differing pixel, and the band stitcher,
 * which only needs the first row of each band.
 */
import { concatBytes } from "../bytes.ts";

/** What the IHDR says, for the 8-bit, non-interlaced RGB(A) images Chromium writes. */
export interface PngHeader {
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA); 0 for anything else (palette, 16-bit, grey, interlaced). */
  channels: 0 | 3 | 4;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The header of a PNG file; `channels` is 0 when this module cannot read its rows (or no PNG). */
export function pngHeader(png: Uint8Array): PngHeader {
  if (png.length < 33 || !SIGNATURE.every((byte, i) => png[i] === byte)) {
    return { width: 0, height: 0, channels: 0 };
  }
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const colour = png[25];
  const readable = png[24] === 8 && png[28] === 0 && (colour === 2 || colour === 6);
  return {
    width: view.getUint32(16),
    height: view.getUint32(20),
    channels: readable ? (colour === 6 ? 4 : 3) : 0,
  };
}

/** The IDAT chunks' data, in order: the image's zlib stream in parts. */
export function idatParts(png: Uint8Array): Uint8Array[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: Uint8Array[] = [];
  for (let offset = 8; offset + 8 <= png.length;) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    if (type === "IDAT") parts.push(png.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  return parts;
}

/** The IDAT chunks' data joined: the whole zlib stream. */
export function zlibStream(png: Uint8Array): Uint8Array {
  const parts = idatParts(png);
  return parts.length === 1 ? parts[0] : concatBytes(parts);
}

/**
 * Reverses a row's PNG filter: `line` is the filter byte and the filtered bytes, `previous` the
 * row above (all zero for the first row); the pixels go to `row`.
 */
export function unfilterRow(
  line: Uint8Array,
  rows: { row: Uint8Array; previous: Uint8Array; channels: number },
): void {
  const { row, previous, channels } = rows;
  const filter = line[0];
  if (filter === 0) return row.set(line.subarray(1, row.length + 1));
  for (let i = 0; i < row.length; i++) {
    const left = i >= channels ? row[i - channels] : 0;
    const corner = i >= channels ? previous[i - channels] : 0;
    row[i] = (line[i + 1] + predict(filter, left, previous[i], corner)) & 0xff;
  }
}

function predict(filter: number, left: number, up: number, corner: number): number {
  switch (filter) {
    case 1:
      return left;
    case 2:
      return up;
    case 3:
      return (left + up) >> 1;
    case 4: {
      const p = left + up - corner;
      const pa = Math.abs(p - left);
      const pb = Math.abs(p - up);
      const pc = Math.abs(p - corner);
      return pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
    }
    default:
      return 0;
  }
}
