/**
 * One PNG from the screenshots of consecutive bands of a page, without decoding them. Each band's
 * scanlines are inflated and deflated again as one part of a single zlib stream (parts end on a
 * sync flush and join as in png_bands.ts); only the first row kept from each band is rewritten
 * unfiltered, because its filter predicted from a row that the previous band does not end with.
 * Memory holds one band's scanlines at a time and the compressed parts, never the whole image.
 */
import { inflateSync } from "node:zlib";
import { concatBytes } from "../bytes.ts";
import { adler32, adler32Combine, zlibPart } from "./png_bands.ts";
import { pngChunk } from "./png_encoder.ts";
import { pngHeader, unfilterRow, zlibStream } from "./png_rows.ts";

// Chromium writes its fast screenshots at zlib level 1; more would cost seconds on tall pages
// for a few percent of size.
const STITCH_LEVEL = 1;
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A band: a screenshot and the run of its rows that belongs to the result. */
export interface PngBand {
  png: Uint8Array;
  /** Rows at the top already shown by the band before (an overlap). */
  skipRows: number;
  /** Rows kept after those. */
  rows: number;
}

/** Why bands could not be joined: they differ in width or pixel format, or are not readable. */
export class StitchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StitchError";
  }
}

export interface PngStitcher {
  /** Appends a band's kept rows below the rows added so far. */
  add(band: PngBand): void;
  /** Rows added so far. */
  readonly height: number;
  /** The PNG of every row added; the stitcher is spent afterwards. */
  finish(): Uint8Array<ArrayBuffer>;
}

/** A stitcher for 8-bit RGB(A) screenshots of one width (what Chromium writes). */
export function createPngStitcher(): PngStitcher {
  let format: { width: number; channels: 3 | 4 } | null = null;
  const parts: Uint8Array[] = [];
  let adler = 1;
  let height = 0;
  // The previous band's scanlines, deflated once the next band shows whether it was the last.
  let pending: Uint8Array | null = null;
  const flush = (last: boolean) => {
    if (!pending) return;
    parts.push(zlibPart(pending, STITCH_LEVEL, last));
    adler = adler32Combine(adler, adler32(pending), pending.length);
    pending = null;
  };
  return {
    get height() {
      return height;
    },
    add(band) {
      const header = pngHeader(band.png);
      if (header.channels === 0) throw new StitchError("a band is not an 8-bit RGB(A) PNG");
      format ??= { width: header.width, channels: header.channels };
      if (header.width !== format.width || header.channels !== format.channels) {
        throw new StitchError("bands differ in width or pixel format");
      }
      const { skipRows, rows } = band;
      if (rows <= 0) return;
      if (skipRows < 0 || skipRows + rows > header.height) {
        throw new StitchError("a band's kept rows lie outside it");
      }
      const stride = format.width * format.channels + 1;
      const inflated = inflateSync(zlibStream(band.png));
      if (inflated.length < header.height * stride) throw new StitchError("a band is cut short");
      const kept = new Uint8Array(
        inflated.buffer,
        inflated.byteOffset + skipRows * stride,
        rows * stride,
      );
      kept.set(unfilteredRow(inflated, { upTo: skipRows, stride, channels: format.channels }));
      flush(false);
      pending = kept;
      height += rows;
    },
    finish() {
      if (!format || height === 0) throw new StitchError("no rows to stitch");
      flush(true);
      const ihdr = new Uint8Array(13);
      const view = new DataView(ihdr.buffer);
      view.setUint32(0, format.width);
      view.setUint32(4, height);
      ihdr.set([8, format.channels === 4 ? 6 : 2, 0, 0, 0], 8);
      const trailer = new Uint8Array(4);
      new DataView(trailer.buffer).setUint32(0, adler >>> 0);
      // zlib header: deflate, 32 KB window, fastest-compression hint (0x7801 is a multiple of 31).
      const idat = pngChunk("IDAT", concatBytes([Uint8Array.of(0x78, 0x01), ...parts, trailer]));
      parts.length = 0;
      return concatBytes([
        Uint8Array.from(SIGNATURE),
        pngChunk("IHDR", ihdr),
        idat,
        pngChunk("IEND", new Uint8Array(0)),
      ]);
    },
  };
}

/**
 * Row `upTo` of the scanlines with filter byte 0 ("none") and its pixels: the first row kept from
 * a band must not predict from the row above it, which belongs to a band that is not kept.
 */
function unfilteredRow(
  scanlines: Uint8Array,
  at: { upTo: number; stride: number; channels: number },
): Uint8Array {
  const { upTo, stride, channels } = at;
  let previous = new Uint8Array(stride - 1);
  let row = new Uint8Array(stride - 1);
  for (let r = 0; r <= upTo; r++) {
    unfilterRow(scanlines.subarray(r * stride, (r + 1) * stride), { row, previous, channels });
    [previous, row] = [row, previous];
  }
  const line = new Uint8Array(stride);
  line.set(previous, 1);
  return line;
}
