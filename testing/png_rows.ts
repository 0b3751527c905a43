/**
 * Reads chosen rows and columns of a large PNG without holding its pixels: the IDAT stream is
 * inflated and unfiltered one row at a time (two rows in memory), keeping only the rows asked
 * for and the pixels of the columns asked for. A 3840x24000 capture is 368 MB as RGBA; this
 * holds a few MB.
 */
import { pngHeader, pngRows } from "../lib/codecs/png_rows.ts";

export interface SampledPng {
  width: number;
  height: number;
  /** [r, g, b] at (x, y); `y` must be one of the sampled rows. */
  rgb(x: number, y: number): number[];
  /** [r, g, b] of every row at column `x`, top to bottom; `x` must be a sampled column. */
  column(x: number): number[][];
}

/** Streams an 8-bit, non-interlaced RGB or RGBA PNG, keeping `rows` whole and `columns`. */
export async function samplePng(
  png: Uint8Array,
  wanted: { rows?: Iterable<number>; columns?: number[] },
): Promise<SampledPng> {
  const { width, height, channels } = pngHeader(png);
  if (channels === 0) throw new Error(`not an 8-bit non-interlaced RGB(A) PNG (type ${png[25]})`);
  const rowSet = new Set(wanted.rows ?? []);
  const columns = (wanted.columns ?? []).map((x) => ({ x, values: new Uint8Array(height * 3) }));
  const kept = new Map<number, Uint8Array>();
  for await (const { y, row } of pngRows(png)) {
    if (rowSet.has(y)) kept.set(y, row.slice());
    for (const { x, values } of columns) {
      values.set(row.subarray(x * channels, x * channels + 3), y * 3);
    }
  }
  return {
    width,
    height,
    rgb(x, y) {
      const line = kept.get(y);
      if (!line) throw new Error(`row ${y} was not sampled`);
      return Array.from(line.subarray(x * channels, x * channels + 3));
    },
    column(x) {
      const found = columns.find((c) => c.x === x);
      if (!found) throw new Error(`column ${x} was not sampled`);
      return Array.from(
        { length: height },
        (_, y) => Array.from(found.values.subarray(y * 3, y * 3 + 3)),
      );
    },
  };
}
