/**
 * A lossless PNG encoded as horizontal bands that can run on different threads. Each band is
 * filtered and deflated on its own and ends on a zlib sync flush (byte-aligned, not final), so the
 * raw deflate parts concatenate into one valid stream; their Adler-32 sums combine. A band only
 * needs the row above it (filters predict from it), never its compressed predecessor. The split
 * depends on the image size alone, so the bytes are the same however many threads ran them.
 */
import { constants, deflateRawSync } from "node:zlib";
import { concatBytes } from "../bytes.ts";
import { endOnSyncFlush } from "./deflate_blocks.ts";
import { libdeflateRaw } from "./libdeflate.ts";
import { pngFile } from "./png_encoder.ts";
import { filterRows, filterTrials, type PngInput, type RowFilter } from "./png_filters.ts";

/** How the bands of a lossless preset are written: a fixed filter strategy, or trials. */
export interface BandSettings {
  level: number;
  filter: RowFilter | "best";
  /**
   * With "best": a fixed setting whose band is kept instead when it is smaller, so the result
   * is never larger than that setting's (a trial at a fast level can misjudge a small band).
   */
  atMost?: { filter: RowFilter; level: number };
  /**
   * With "best": a band whose best trial still keeps `fromRatio` of its bytes or more (photo-like
   * content) is deflated by libdeflate at `level` instead of zlib.
   */
  nearOptimal?: { fromRatio: number; level: number };
}

/** One band, ready to post to a worker (plain data, the rows copied out of the image). */
export interface BandRequest extends BandSettings {
  /** The band's rows, preceded by the row above it unless the band starts the image. */
  rows: Uint8Array;
  width: number;
  channels: 3 | 4;
  withRowAbove: boolean;
  /** The last band ends the deflate stream; the others end on a sync flush. */
  last: boolean;
}

export interface DeflatedBand {
  /** Raw deflate data (no zlib header or checksum). */
  deflated: Uint8Array;
  /** Adler-32 of the filtered bytes and their count, to combine into the stream's sum. */
  adler: number;
  length: number;
  filter: RowFilter;
}

// About a megapixel per band: a 1080p frame is 2 bands, 4K 8, so two cores share the work
// evenly while each band stays large enough that restarting the deflate window costs under 1%.
const BAND_PIXELS = 1_000_000;
const MAX_BANDS = 16;

/** How many bands an image of this size is written in. */
export function bandCount(width: number, height: number): number {
  return Math.max(1, Math.min(MAX_BANDS, Math.floor((width * height) / BAND_PIXELS)));
}

/** The bands of an image: rows split evenly, each with its row above. */
export function splitBands(image: PngInput, settings: BandSettings): BandRequest[] {
  const { width, height, data } = image;
  const channels = image.channels as 3 | 4;
  const count = bandCount(width, height);
  const stride = width * channels;
  return Array.from({ length: count }, (_, i) => {
    const from = Math.floor((height * i) / count);
    const to = Math.floor((height * (i + 1)) / count);
    const withRowAbove = from > 0;
    // A copy (a Node Buffer's slice would share memory), so each band can be transferred.
    const rows = new Uint8Array(
      data.subarray((withRowAbove ? from - 1 : from) * stride, to * stride),
    );
    return { ...settings, rows, width, channels, withRowAbove, last: i === count - 1 };
  });
}

/** Filters and deflates one band (in whichever thread runs it). */
export function deflateBand(band: BandRequest): DeflatedBand {
  const { rows, width, channels, withRowAbove, filter } = band;
  const image: PngInput = { data: rows, width, height: rows.length / (width * channels), channels };
  const range = { from: withRowAbove ? 1 : 0, to: image.height };
  const deflate = (filtered: Uint8Array, level: number) => zlibPart(filtered, level, band.last);
  if (filter !== "best") {
    const filtered = filterRows(image, { filter, ...range });
    return bandOf(filter, filtered, deflate(filtered, band.level));
  }
  const trials = filterTrials(image, range);
  const best = trials[0];
  const dense = band.nearOptimal && best.size >= band.nearOptimal.fromRatio * best.filtered.length;
  const deflated = dense
    ? deflateNearOptimal(best.filtered, band.nearOptimal!.level, band.last)
    : deflate(best.filtered, band.level);
  const floor = band.atMost;
  if (!floor || floor.filter === best.filter) return bandOf(best.filter, best.filtered, deflated);
  const other = trials.find((t) => t.filter === floor.filter)?.filtered ??
    filterRows(image, { filter: floor.filter, ...range });
  const fallback = deflate(other, floor.level);
  return fallback.length < deflated.length
    ? bandOf(floor.filter, other, fallback)
    : bandOf(best.filter, best.filtered, deflated);
}

/** zlib's raw deflate of a band's scanlines, ending on a sync flush unless it ends the image. */
export function zlibPart(scanlines: Uint8Array, level: number, last: boolean): Uint8Array {
  const flush = last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH;
  const out = deflateRawSync(scanlines, { level, finishFlush: flush });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A deflated band with what joining it needs: the Adler-32 and length of its scanlines. */
export function bandOf(
  filter: RowFilter,
  scanlines: Uint8Array,
  deflated: Uint8Array,
): DeflatedBand {
  return { deflated, adler: adler32(scanlines), length: scanlines.length, filter };
}

/** libdeflate's output, ending on a sync flush unless it ends the image. */
function deflateNearOptimal(filtered: Uint8Array, level: number, last: boolean): Uint8Array {
  const deflated = libdeflateRaw(filtered, level);
  return last ? deflated : endOnSyncFlush(deflated);
}

/** The PNG file from its deflated bands, in order. */
export function joinBands(
  image: Omit<PngInput, "data">,
  bands: DeflatedBand[],
): Uint8Array<ArrayBuffer> {
  let adler = 1;
  for (const band of bands) adler = adler32Combine(adler, band.adler, band.length);
  const trailer = new Uint8Array(4);
  new DataView(trailer.buffer).setUint32(0, adler >>> 0);
  // zlib header: deflate, 32 KB window, default-compression hint; the check bits make it % 31.
  const zlib = concatBytes([Uint8Array.of(0x78, 0x9c), ...bands.map((b) => b.deflated), trailer]);
  return pngFile(image, zlib);
}

/** Every band in this thread, one after another: the same bytes as spreading them out. */
export function encodeBands(image: PngInput, settings: BandSettings): Uint8Array<ArrayBuffer> {
  return joinBands(image, splitBands(image, settings).map(deflateBand));
}

const ADLER_MOD = 65521;

/** Adler-32 (RFC 1950) of `bytes`. */
export function adler32(bytes: Uint8Array): number {
  let a = 1, b = 0;
  // 5552 bytes is the most that can be summed before b could overflow 2^32 (zlib's NMAX).
  for (let start = 0; start < bytes.length; start += 5552) {
    const end = Math.min(bytes.length, start + 5552);
    for (let i = start; i < end; i++) {
      a += bytes[i];
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of two runs joined, from their sums and the second's length (zlib's rule). */
export function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % ADLER_MOD;
  const a1 = first & 0xffff, b1 = first >>> 16;
  const a2 = second & 0xffff, b2 = second >>> 16;
  const a = (a1 + a2 + ADLER_MOD - 1) % ADLER_MOD;
  const b = ((rem * a1) % ADLER_MOD + b1 + b2 + ADLER_MOD - rem) % ADLER_MOD;
  return ((b << 16) | a) >>> 0;
}
