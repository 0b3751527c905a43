/**
 * Reads chosen rows and columns of a large PNG without holding its pixels: the IDAT stream is
 * inflated and unfiltered one row at a time (two rows in memory), keeping only the rows asked
 * for and the pixels of the columns asked for. A 3840x24000 capture is 368 MB as RGBA; this
 * holds a few MB.
 */
import { pngChunks, pngSize } from "./png.ts";

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
  const { width, height } = pngSize(png);
  const channels = png[25] === 6 ? 4 : png[25] === 2 ? 3 : 0;
  if (png[24] !== 8 || channels === 0 || png[28] !== 0) {
    throw new Error(`not an 8-bit non-interlaced RGB(A) PNG (type ${png[25]})`);
  }
  const rowSet = new Set(wanted.rows ?? []);
  const columns = (wanted.columns ?? []).map((x) => ({ x, values: new Uint8Array(height * 3) }));
  const kept = new Map<number, Uint8Array>();
  const idat = pngChunks(png).filter((c) => c.type === "IDAT").map((c) => c.data.slice());
  const reader = new Blob(idat).stream().pipeThrough(new DecompressionStream("deflate"))
    .getReader();
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
        unfilter(line, row, previous, channels);
        if (rowSet.has(y)) kept.set(y, row.slice());
        for (const { x, values } of columns) {
          values.set(row.subarray(x * channels, x * channels + 3), y * 3);
        }
        [previous, row] = [row, previous];
        y++;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
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

/** Undoes one row's PNG filter into `row`, given the unfiltered row above. */
function unfilter(line: Uint8Array, row: Uint8Array, previous: Uint8Array, bpp: number) {
  const filter = line[0];
  const n = row.length;
  if (filter === 0) {
    row.set(line.subarray(1));
  } else if (filter === 1) {
    for (let i = 0; i < n; i++) row[i] = line[i + 1] + (i >= bpp ? row[i - bpp] : 0);
  } else if (filter === 2) {
    for (let i = 0; i < n; i++) row[i] = line[i + 1] + previous[i];
  } else if (filter === 3) {
    for (let i = 0; i < n; i++) {
      row[i] = line[i + 1] + (((i >= bpp ? row[i - bpp] : 0) + previous[i]) >> 1);
    }
  } else if (filter === 4) {
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
  } else {
    throw new Error(`unknown PNG filter ${filter}`);
  }
}
