/** Judges a decoded capture against the corpus regions: a grid of samples per region. */
import type { Region } from "./corpus.ts";

/** What decodePng (testing/capture_fixtures.ts) returns. */
export interface Pixels {
  width: number;
  height: number;
  rgb(x: number, y: number): number[];
}

export interface RegionResult {
  region: Region;
  ok: boolean;
  /** The first sample that was wrong, as #rrggbb, or null. */
  wrong: string | null;
}

// Samples per region: 6 across, 4 down.
const COLUMNS = 6;
const ROWS = 4;
const DEFAULT_TOLERANCE = 12;

/** Each region's verdict; `scale` is the capture's device pixel ratio. */
export function judgeRegions(image: Pixels, regions: Region[], scale = 1): RegionResult[] {
  return regions.map((region) => {
    const want = hexRgb(region.color);
    const tolerance = region.tolerance ?? DEFAULT_TOLERANCE;
    for (let row = 0; row < ROWS; row++) {
      for (let column = 0; column < COLUMNS; column++) {
        const x = Math.round((region.x + (region.width * (column + 0.5)) / COLUMNS) * scale);
        const y = Math.round((region.y + (region.height * (row + 0.5)) / ROWS) * scale);
        const seen = x < image.width && y < image.height ? image.rgb(x, y) : [-1, -1, -1];
        if (seen.some((v, i) => Math.abs(v - want[i]) > tolerance)) {
          return { region, ok: false, wrong: seen[0] < 0 ? "outside" : rgbHex(seen) };
        }
      }
    }
    return { region, ok: true, wrong: null };
  });
}

/** "a: wrong #xxxxxx (want #yyyyyy)" per wrong region, for assertion messages. */
export function describeWrong(results: RegionResult[]): string {
  return results.filter((r) => !r.ok)
    .map((r) => `${r.region.name}: ${r.wrong} (want ${r.region.color})`).join("; ");
}

function hexRgb(hex: string): number[] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

function rgbHex(rgb: number[]): string {
  return "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");
}
