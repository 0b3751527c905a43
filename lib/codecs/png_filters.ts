/**
 * PNG row filters and the choice between them. "adaptive" is libpng's heuristic: each row gets
 * the filter (None, Sub, Up, Average, Paeth) whose output has the smallest sum of absolute
 * values. The fixed strategies give every row one filter. `filterTrials` deflates the rows with
 * each strategy at a fast level, and the smallest is kept: on a browser screenshot no filter at all wins
 * (zlib then finds the repeated runs of glyph pixels that prediction breaks up; 186 KB against
 * 213 KB adaptive on the 1080p fixture at zlib 9), on a photo the adaptive choice does.
 */
import { deflateRawSync } from "node:zlib";

export interface PngInput {
  /**
   * 8-bit samples, `channels` per pixel (3 = RGB, 4 = RGBA, 1 = palette index), rows top to
   * bottom.
   */
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  /** With `channels: 1`: the palette, 4 bytes (RGBA) per entry, at most 256 entries. */
  palette?: Uint8Array;
}

export const ROW_FILTERS = ["none", "sub", "up", "average", "paeth", "adaptive"] as const;
export type RowFilter = typeof ROW_FILTERS[number];
const FILTER_TYPE = { none: 0, sub: 1, up: 2, average: 3, paeth: 4 } as const;

// The strategies worth a trial: Up, Average and Paeth alone never won on the screenshot or the
// photo fixture; None wins on screenshots, adaptive on photos, Sub is a close second on both.
const CANDIDATES: RowFilter[] = ["none", "sub", "adaptive"];
// Trials deflate every row at zlib 1: it ranks the strategies as zlib 9 does on both fixtures
// (and costs 4 to 33 ms a 1080p frame). A sample of rows at a higher level did not: it loses the
// matches between neighbouring rows that make None win on screenshots.
const TRIAL_LEVEL = 1;

/** Rows `from` to `to` (exclusive) as filtered scanlines: the filter type byte, then the row. */
export function filterRows(
  image: PngInput,
  options: { filter?: RowFilter; from?: number; to?: number } = {},
): Uint8Array {
  const { data, width, channels } = image;
  const { filter = "adaptive", from = 0, to = image.height } = options;
  const stride = width * channels;
  const out = new Uint8Array((stride + 1) * (to - from));
  const zero = new Uint8Array(stride);
  for (let y = from; y < to; y++) {
    const row = data.subarray(y * stride, (y + 1) * stride);
    const prev = y === 0 ? zero : data.subarray((y - 1) * stride, y * stride);
    const type = filter === "adaptive" ? bestFilter(row, prev, channels) : FILTER_TYPE[filter];
    const dest = (y - from) * (stride + 1);
    out[dest] = type;
    applyFilter(type, row, prev, channels, out.subarray(dest + 1, dest + 1 + stride));
  }
  return out;
}

/** A strategy's filtered rows and their size at the trial level. */
export interface FilterTrial {
  filter: RowFilter;
  filtered: Uint8Array;
  size: number;
}

/** Rows `from`..`to` under each candidate strategy, smallest at a fast deflate level first. */
export function filterTrials(image: PngInput, range: { from: number; to: number }): FilterTrial[] {
  const trials = CANDIDATES.map((filter) => {
    const filtered = filterRows(image, { filter, ...range });
    return { filter, filtered, size: deflateRawSync(filtered, { level: TRIAL_LEVEL }).length };
  });
  return trials.sort((a, b) => a.size - b.size); // stable: ties keep the candidates' order
}

/** libpng's heuristic: a filtered byte counts as a signed value, smaller sums deflate better. */
function bestFilter(row: Uint8Array, prev: Uint8Array, bpp: number): number {
  let none = 0, sub = 0, up = 0, avg = 0, paeth = 0;
  for (let i = 0; i < row.length; i++) {
    const x = row[i];
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prev[i];
    const c = i >= bpp ? prev[i - bpp] : 0;
    none += cost(x);
    sub += cost(x - a);
    up += cost(x - b);
    avg += cost(x - ((a + b) >> 1));
    paeth += cost(x - predictPaeth(a, b, c));
  }
  let best = 0, bestSum = none;
  if (sub < bestSum) (best = 1), (bestSum = sub);
  if (up < bestSum) (best = 2), (bestSum = up);
  if (avg < bestSum) (best = 3), (bestSum = avg);
  if (paeth < bestSum) best = 4;
  return best;
}

function applyFilter(
  filter: number,
  row: Uint8Array,
  prev: Uint8Array,
  bpp: number,
  out: Uint8Array,
): void {
  if (filter === 0) return out.set(row);
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prev[i];
    const c = i >= bpp ? prev[i - bpp] : 0;
    const predicted = filter === 1
      ? a
      : filter === 2
      ? b
      : filter === 3
      ? (a + b) >> 1
      : predictPaeth(a, b, c);
    out[i] = (row[i] - predicted) & 0xff;
  }
}

function cost(delta: number): number {
  const v = delta & 0xff;
  return v < 128 ? v : 256 - v;
}

function predictPaeth(a: number, b: number, c: number): number {
  const pa = Math.abs(b - c);
  const pb = Math.abs(a - c);
  const pc = Math.abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}
