/**
 * Cutting a long capture for a model: the tile plan (exact cover, limits, reading order, even
 * sizes), the overview's size, and the cut itself on both codec paths, whose PNG tiles must be
 * the source's pixels exactly.
 */
import { codecPaths } from "../../testing/codec_paths.ts";
import assert from "node:assert/strict";
import fc from "fast-check";
import { alphaPixels, encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { downscalePixels, type Pixels } from "../../lib/codecs/pixels.ts";
import {
  cutImage,
  fitSize,
  MODEL_IMAGE_LIMITS,
  planTiles,
  type Rect,
  type VisionLimits,
  withinLimits,
} from "../../lib/codecs/tiles.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";

/** Checks what every plan promises; returns the number of columns. */
function assertPlan(area: Rect, limits: VisionLimits, tiles: Rect[]): number {
  const columns = tiles.filter((tile) => tile.y === area.y).length;
  assert.equal(tiles.length % columns, 0, "every row has the same columns");
  let covered = 0;
  for (const [i, tile] of tiles.entries()) {
    assert.ok(withinLimits(tile, limits), `tile ${i} ${tile.width}x${tile.height} within limits`);
    const [row, column] = [Math.floor(i / columns), i % columns];
    const left = column === 0 ? area.x : tiles[i - 1].x + tiles[i - 1].width;
    const top = row === 0 ? area.y : tiles[i - columns].y + tiles[i - columns].height;
    assert.deepEqual([tile.x, tile.y], [left, top], `tile ${i} follows its neighbours`);
    covered += tile.width * tile.height;
  }
  const last = tiles.at(-1)!;
  assert.deepEqual(
    [last.x + last.width, last.y + last.height],
    [area.x + area.width, area.y + area.height],
  );
  assert.equal(covered, area.width * area.height, "no gap, no overlap");
  const spread = (sizes: number[]) => Math.max(...sizes) - Math.min(...sizes);
  assert.ok(spread(tiles.map((t) => t.width)) <= 1 && spread(tiles.map((t) => t.height)) <= 1);
  return columns;
}

Deno.test("a 1280x20000 page is 23 tiles of the full width, one under another", () => {
  const area = { x: 0, y: 0, width: 1280, height: 20_000 };
  const tiles = planTiles(area, MODEL_IMAGE_LIMITS);
  assert.equal(assertPlan(area, MODEL_IMAGE_LIMITS, tiles), 1);
  assert.equal(tiles.length, 23);
  assert.ok(tiles.every((tile) => tile.width === 1280 && tile.height <= 898));
  // 22 rows of the tallest allowed tile (898 px: 1280 x 898 <= 1.15 MP) would not cover it.
  assert.ok(22 * 898 < 20_000);
});

Deno.test("a 1920 px wide page is two columns; a small image one tile; an area keeps its offset", () => {
  const wide = { x: 0, y: 0, width: 1920, height: 5000 };
  const tiles = planTiles(wide, MODEL_IMAGE_LIMITS);
  assert.equal(assertPlan(wide, MODEL_IMAGE_LIMITS, tiles), 2);
  assert.deepEqual(tiles.slice(0, 2).map((t) => [t.x, t.width]), [[0, 960], [960, 960]]);
  assert.deepEqual(planTiles({ x: 0, y: 0, width: 300, height: 200 }, MODEL_IMAGE_LIMITS), [
    { x: 0, y: 0, width: 300, height: 200 },
  ]);
  const region = { x: 40, y: 7000, width: 1000, height: 3000 };
  const inRegion = planTiles(region, MODEL_IMAGE_LIMITS);
  assertPlan(region, MODEL_IMAGE_LIMITS, inRegion);
  assert.deepEqual([inRegion[0].x, inRegion[0].y], [40, 7000]);
  assert.throws(
    () => planTiles({ x: 0, y: 0, width: 0, height: 10 }, MODEL_IMAGE_LIMITS),
    RangeError,
  );
});

Deno.test("any area is covered exactly within any limits, by the fewest columns and rows", () => {
  const area = fc.record({
    x: fc.nat(5000),
    y: fc.nat(50_000),
    width: fc.integer({ min: 1, max: 4000 }),
    height: fc.integer({ min: 1, max: 20_000 }),
  });
  // At least 100 px and 10,000 pixels a tile: at most a few thousand tiles to check per plan.
  const limits = fc.record({
    maxSide: fc.integer({ min: 100, max: 4000 }),
    maxPixels: fc.integer({ min: 10_000, max: 4_000_000 }),
  });
  fc.assert(
    fc.property(area, limits, (area, limits) => {
      const tiles = planTiles(area, limits);
      const columns = assertPlan(area, limits, tiles);
      const rows = tiles.length / columns;
      // One column fewer would make a tile wider than a row of it may be.
      if (columns > 1) {
        assert.ok(
          Math.ceil(area.width / (columns - 1)) > Math.min(limits.maxSide, limits.maxPixels),
        );
      }
      if (rows > 1) {
        const taller = Math.ceil(area.height / (rows - 1));
        const widest = Math.max(...tiles.slice(0, columns).map((tile) => tile.width));
        assert.ok(!withinLimits({ width: widest, height: taller }, limits));
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("fitSize scales down to the side and pixel limits, never up, keeping the aspect", () => {
  assert.deepEqual(fitSize({ width: 1280, height: 20_000 }, MODEL_IMAGE_LIMITS), {
    width: 100,
    height: 1568,
  });
  const landscape = fitSize({ width: 4000, height: 3000 }, MODEL_IMAGE_LIMITS);
  assert.ok(withinLimits(landscape, MODEL_IMAGE_LIMITS));
  assert.ok(Math.abs(landscape.width / landscape.height - 4 / 3) < 0.01);
  assert.ok(landscape.width * landscape.height > 0.99 * MODEL_IMAGE_LIMITS.maxPixels);
  assert.deepEqual(fitSize({ width: 800, height: 600 }, MODEL_IMAGE_LIMITS), {
    width: 800,
    height: 600,
  });
  assert.deepEqual(fitSize({ width: 2, height: 100_000 }, MODEL_IMAGE_LIMITS), {
    width: 1,
    height: 1568,
  });
  const side = fc.integer({ min: 1, max: 40_000 });
  fc.assert(
    fc.property(side, side, fc.integer({ min: 1, max: 5000 }), (width, height, maxSide) => {
      const limits = { maxSide, maxPixels: maxSide * 700 };
      const fitted = fitSize({ width, height }, limits);
      assert.ok(withinLimits(fitted, limits), `${width}x${height} -> ${JSON.stringify(fitted)}`);
      assert.ok(fitted.width <= width && fitted.height <= height);
      if (withinLimits({ width, height }, limits)) assert.deepEqual(fitted, { width, height });
    }),
  );
});

const paths = await codecPaths();

/** The pixels of `rect` in `image`, RGBA. */
function region(image: Pixels, rect: Rect): Uint8Array {
  const out = new Uint8Array(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const from = ((rect.y + y) * image.width + rect.x) * 4;
    out.set(image.data.subarray(from, from + rect.width * 4), y * rect.width * 4);
  }
  return out;
}

// Small limits so a small image gives several columns and rows, edges included.
const SMALL: VisionLimits = { maxSide: 500, maxPixels: 150_000 };

for (const [path, create] of paths) {
  Deno.test(`${path}: PNG tiles are the capture's pixels exactly; the overview is scaled`, async () => {
    const exporter = await create();
    try {
      const page = screenshotPixels(1100, 2300);
      const source = await encodeFixture(page, "png");
      const full = { x: 0, y: 0, width: page.width, height: page.height };
      const tiles = planTiles(full, SMALL);
      const overview = { rect: full, ...fitSize(full, SMALL) };
      const pieces = [
        overview,
        ...tiles.map((rect) => ({ rect, width: rect.width, height: rect.height })),
      ];
      const cut = await cutImage(source, pieces, { format: "png", exporter });
      assert.equal(cut.length, pieces.length);
      for (const [i, piece] of cut.entries()) {
        assert.equal(piece.contentType, "image/png");
        assert.deepEqual(piece.rect, pieces[i].rect);
        const decoded = await decodeWasm("png", piece.bytes);
        assert.deepEqual([decoded.width, decoded.height], [pieces[i].width, pieces[i].height]);
        if (i === 0) continue;
        assert.deepEqual(decoded.data, region(page, piece.rect), `tile ${i} pixel-exact`);
      }
      if (path === "wasm") {
        const expected = downscalePixels(page, overview.width, overview.height);
        assert.deepEqual((await decodeWasm("png", cut[0].bytes)).data, expected.data);
      }
    } finally {
      await exporter.close();
    }
  });

  Deno.test(`${path}: transparency is kept, a JPEG source is cut, lossy pieces are written`, async () => {
    const exporter = await create();
    try {
      const image = alphaPixels(320, 240);
      const source = await encodeFixture(image, "png", true);
      const rect = { x: 10, y: 20, width: 150, height: 100 };
      const [piece] = await cutImage(source, [{ rect, width: 150, height: 100 }], {
        format: "png",
        exporter,
      });
      assert.deepEqual((await decodeWasm("png", piece.bytes)).data, region(image, rect));
      const jpeg = await encodeFixture(screenshotPixels(600, 900), "jpeg");
      const pieces = planTiles({ x: 0, y: 0, width: 600, height: 900 }, SMALL)
        .map((rect) => ({ rect, width: rect.width, height: rect.height }));
      for (const format of ["jpeg", "webp"] as const) {
        const cut = await cutImage(jpeg, pieces, { format, quality: "medium", exporter });
        for (const [i, piece] of cut.entries()) {
          assert.equal(piece.contentType, `image/${format}`);
          const decoded = await decodeWasm(format, piece.bytes);
          assert.deepEqual([decoded.width, decoded.height], [pieces[i].width, pieces[i].height]);
        }
      }
      await assert.rejects(
        cutImage(
          jpeg,
          [{ rect: { x: 500, y: 0, width: 200, height: 10 }, width: 200, height: 10 }],
          {
            format: "png",
            exporter,
          },
        ),
        RangeError,
      );
    } finally {
      await exporter.close();
    }
  });
}
