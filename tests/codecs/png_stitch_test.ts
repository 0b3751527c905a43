import assert from "node:assert/strict";
import { createPngStitcher, StitchError } from "../../lib/codecs/png_stitch.ts";
import { encodePng } from "../../lib/codecs/png_encoder.ts";
import { ROW_FILTERS } from "../../lib/codecs/png_filters.ts";
import { decodePng } from "../../testing/capture_fixtures.ts";

const WIDTH = 37;

/** Pixels that differ in every row and column, so any misplaced or mispredicted row shows. */
function pixels(rows: number, channels: 3 | 4, seed: number): Uint8Array {
  const data = new Uint8Array(WIDTH * rows * channels);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed * 17 + (i >> 5)) & 0xff;
  return data;
}

function band(data: Uint8Array, channels: 3 | 4, filter: (typeof ROW_FILTERS)[number]) {
  const height = data.length / (WIDTH * channels);
  return encodePng({ data, width: WIDTH, height, channels }, 6, filter);
}

Deno.test("stitched bands decode to exactly the kept rows, whatever each band's filters", () => {
  for (const channels of [3, 4] as const) {
    const first = pixels(20, channels, 1);
    const second = pixels(20, channels, 2);
    const third = pixels(20, channels, 3);
    const stitcher = createPngStitcher();
    stitcher.add({ png: band(first, channels, "up"), skipRows: 0, rows: 20 });
    stitcher.add({ png: band(second, channels, "paeth"), skipRows: 0, rows: 20 });
    // The last band overlaps: its first 7 rows were already shown.
    stitcher.add({ png: band(third, channels, "adaptive"), skipRows: 7, rows: 13 });
    const png = stitcher.finish();
    const image = decodePng(png);
    assert.deepEqual([image.width, image.height], [WIDTH, 53]);
    const stride = WIDTH * channels;
    const expected = new Uint8Array([
      ...first,
      ...second,
      ...third.subarray(7 * stride),
    ]);
    assert.deepEqual(image.pixels, expected, `${channels} channels`);
  }
});

Deno.test("a stitcher refuses bands of another width or pixel format, and an empty result", () => {
  const stitcher = createPngStitcher();
  stitcher.add({ png: band(pixels(4, 3, 1), 3, "up"), skipRows: 0, rows: 4 });
  assert.throws(
    () => stitcher.add({ png: band(pixels(4, 4, 1), 4, "up"), skipRows: 0, rows: 4 }),
    StitchError,
  );
  assert.throws(
    () => stitcher.add({ png: band(pixels(4, 3, 1), 3, "up"), skipRows: 2, rows: 4 }),
    StitchError,
    "rows past the band's end",
  );
  assert.throws(() => createPngStitcher().finish(), StitchError);
});
