/**
 * Reading the scanlines of an 8-bit RGB or RGBA PNG without a decoder: the header, the zlib
 * stream of its IDAT chunks, reversing one row's filter, and the rows streamed one at a time. Used
 * where a whole decode would be waste: the blank-frame test, which stops at the first differing
 * pixel, the band stitcher, which only needs the first row of each band, and tests that sample
 * rows of captures too large to decode.
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

/** One row of `pngRows`: its pixels, the row above, and the row as stored (filter byte first). */
export interface PngRow {
  y: number;
  row: Uint8Array;
  previous: Uint8Array;
  line: Uint8Array;
}

/**
 * The rows of a PNG whose header `pngHeader` can read, top to bottom, inflated as a stream and
 * unfiltered one at a time: two rows are held, so the buffers of a row are reused two rows later
 * (copy what must be kept). `unfilter` may be replaced by a cheaper reading of the stored row.
 * Throws when the image data ends early.
 */
export async function* pngRows(
  png: Uint8Array,
  unfilter: typeof unfilterRow = unfilterRow,
): AsyncGenerator<PngRow> {
  const { width, height, channels } = pngHeader(png);
  if (channels === 0) throw new Error("not an 8-bit, non-interlaced RGB(A) PNG");
  const reader = new Blob(idatParts(png) as Uint8Array<ArrayBuffer>[]).stream()
    .pipeThrough(new DecompressionStream("deflate")).getReader();
  const stride = width * channels;
  const line = new Uint8Array(stride + 1);
  let previous = new Uint8Array(stride);
  let row = new Uint8Array(stride);
  let filled = 0;
  let y = 0;
  try {
    while (y < height) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the image data ends at row ${y} of ${height}`);
      for (let at = 0; at < value.length && y < height;) {
        const take = Math.min(value.length - at, line.length - filled);
        line.set(value.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled < line.length) continue;
        filled = 0;
        unfilter(line, { row, previous, channels });
        yield { y, row, previous, line };
        [previous, row] = [row, previous];
        y++;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Reverses a row's PNG filter: `line` is the filter byte and the filtered bytes, `previous` the
 * row above (all zero for the first row); the pixels go to `row`.
 */
export function unfilterRow(
  line: Uint8Array,
  rows: { row: Uint8Array; previous: Uint8Array; channels: number },
): void {
  const { row, previous, channels: bpp } = rows;
  const n = row.length;
  // One loop per filter: a switch per byte costs a 3840x24000 capture seconds.
  switch (line[0]) {
    case 1:
      for (let i = 0; i < n; i++) row[i] = line[i + 1] + (i >= bpp ? row[i - bpp] : 0);
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = line[i + 1] + previous[i];
      return;
    case 3:
      for (let i = 0; i < n; i++) {
        row[i] = line[i + 1] + (((i >= bpp ? row[i - bpp] : 0) + previous[i]) >> 1);
      }
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? row[i - bpp] : 0;
        const b = previous[i];
        const c = i >= bpp ? previous[i - bpp] : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = line[i + 1] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      return;
    default:
      // None (0), and unknown filters read as none.
      row.set(line.subarray(1, n + 1));
  }
}
