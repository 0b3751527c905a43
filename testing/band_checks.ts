/**
 * Checks of full-page captures built of solid bands (testing/page_shapes.ts): every
 * band's colour at three rows, so a seam, gap, shift or repeated band fails, and how often a
 * colour runs down one column, so a header drawn twice fails.
 */
import assert from "node:assert/strict";
import type { SampledPng } from "./png_rows.ts";

/** Bands in device px: band `i` has colour `color(i)` on rows top + i * band .. + band - 1. */
export interface BandLayout {
  top: number;
  band: number;
  count: number;
  color: (index: number) => number[];
  /** Rows at or past this one are not checked (the image's height). */
  limit?: number;
}

/**
 * The first, middle and last row of each band, below `limit`: a band moved by even one row
 * shows at its first or last row.
 */
export function bandRows(layout: BandLayout): number[] {
  const rows: number[] = [];
  for (let i = 0; i < layout.count; i++) {
    const top = layout.top + i * layout.band;
    for (const y of [top, top + Math.floor(layout.band / 2), top + layout.band - 1]) {
      if (y < (layout.limit ?? Infinity)) rows.push(y);
    }
  }
  return rows;
}

// Chromium paints solid CSS colours exactly; a little slack keeps the check about position.
const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]) <= 2);

/** Fails naming the first wrong rows (and how many) unless every band is right at column x. */
export function assertBands(image: SampledPng, layout: BandLayout, x: number, what: string) {
  const misses: string[] = [];
  for (const y of bandRows(layout)) {
    const index = Math.floor((y - layout.top) / layout.band);
    const got = image.rgb(x, y);
    if (!near(got, layout.color(index))) {
      misses.push(`y ${y} (band ${index}): ${got} instead of ${layout.color(index)}`);
    }
  }
  if (misses.length > 0) {
    assert.fail(`${what}: ${misses.length} wrong rows at x ${x}; ${misses.slice(0, 6).join("; ")}`);
  }
}

/** The runs of `color` down column x: [first row, length] each. */
export function runsOf(image: SampledPng, x: number, color: number[]): [number, number][] {
  const runs: [number, number][] = [];
  image.column(x).forEach((rgb, y) => {
    if (!near(rgb, color)) return;
    const last = runs.at(-1);
    if (last && last[0] + last[1] === y) last[1]++;
    else runs.push([y, 1]);
  });
  return runs;
}
