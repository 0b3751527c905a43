/**
 * Full pages past one GPU texture, on both capture backends: documents of 20,000, 30,000 and
 * 40,000 CSS px at 1x and 12,000 px at scale 2, built of 100 px bands of unique colours and
 * checked at three rows per band (a seam, gap, shift or repeat fails); fixed and sticky headers
 * once; `truncated` only past 32767 device px; and the largest capture (3840x24000) exported.
 */
import assert from "node:assert/strict";
import { readImageInfo, sniffKind } from "../../../lib/codecs/image_info.ts";
import { loadSharp } from "../../../lib/codecs/sharp.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { assertBands, type BandLayout, bandRows, runsOf } from "../../../testing/band_checks.ts";
import { samplePng } from "../../../testing/png_rows.ts";
import { BACKENDS, shapeHarness } from "../../../testing/shape_harness.ts";
import { bandColor, HEADER, LONG, LONG_PAGES, shapeRoutes } from "../../../testing/page_shapes.ts";

// The tallest image side a full page may have, in device px, and the most pixels in all.
const MAX_SIDE = 32_767;
const MAX_PIXELS = 128_000_000;

/** The bands of a long page at `scale`, below its header if it has one, cut at `limit`. */
function longBands(path: string, scale: number, limit?: number): BandLayout {
  const { height, header } = LONG_PAGES[path];
  const top = header ? LONG.header : 0;
  return {
    top: top * scale,
    band: LONG.band * scale,
    count: (height - top) / LONG.band,
    color: bandColor,
    limit,
  };
}

for (const backend of BACKENDS) {
  Deno.test(`full pages up to 32767 device px are whole, band by band (${backend})`, async (t) => {
    const pages = servePages(shapeRoutes());
    await using shapes = await shapeHarness(pages, backend);

    try {
      for (const path of ["/long/20000-fixed", "/long/30000-sticky"]) {
        const { height, header } = LONG_PAGES[path];
        await t.step(`${height} px at 1x: 1920x${height}, the ${header} header once`, async () => {
          const { json, png } = await shapes.shoot(path);
          assert.deepEqual([json.width, json.height], [1920, height]);
          assert.equal(json.truncated, undefined, "not cut");
          const layout = longBands(path, 1);
          const image = await samplePng(png, { rows: bandRows(layout), columns: [960] });
          assert.deepEqual(runsOf(image, 960, HEADER), [[0, LONG.header]], "header runs");
          assertBands(image, layout, 960, `the ${height} px page`);
        });
      }

      await t.step(
        "40000 px at 1x: cut at 1920x32767, truncated, every band above right",
        async () => {
          const path = "/long/40000";
          const { json, png } = await shapes.shoot(path);
          assert.deepEqual([json.width, json.height], [1920, MAX_SIDE]);
          assert.equal(json.truncated, true);
          const layout = longBands(path, 1, MAX_SIDE);
          const image = await samplePng(png, { rows: [...bandRows(layout), MAX_SIDE - 1] });
          assertBands(image, layout, 960, "the 40000 px page");
          const lastBand = Math.floor((MAX_SIDE - 1) / LONG.band);
          assert.deepEqual(image.rgb(960, MAX_SIDE - 1), bandColor(lastBand), "the last row");
        },
      );

      await t.step(
        "40000 px unsettled: drawn in bands past one call, joined without a seam",
        async () => {
          const path = "/long/40000";
          const { json, png } = await shapes.shoot(path, { settle: false });
          assert.deepEqual([json.width, json.height], [1920, MAX_SIDE]);
          assert.equal(json.truncated, true);
          const layout = longBands(path, 1, MAX_SIDE);
          // Around the joins of the 16384 px bands above all: every band's three rows.
          const image = await samplePng(png, { rows: bandRows(layout), columns: [960] });
          assertBands(image, layout, 960, "the unsettled 40000 px page");
        },
      );

      // The re-encoding of joined screens does not depend on the backend: once is enough.
      if (backend === "local") {
        await t.step(
          "jpeg and webp full pages: joined, then re-encoded; webp ends at 16383 px",
          async () => {
            const loaded = await loadSharp();
            assert.ok("sharp" in loaded, "sharp decodes the answers here");
            const { sharp } = loaded;
            const path = "/long/20000-fixed";
            const layout = longBands(path, 1);
            for (const [format, height] of [["jpeg", 20_000], ["webp", 16_383]] as const) {
              const response = await shapes.app.request("/api/screenshot", {
                method: "POST",
                headers: { "content-type": "application/json", accept: `image/${format}` },
                body: JSON.stringify({ url: `${pages.origin}${path}`, fullPage: true, format }),
              });
              assert.equal(response.status, 200, format);
              assert.equal(response.headers.get("content-type"), `image/${format}`);
              assert.equal(response.headers.get("x-truncated"), format === "webp" ? "true" : null);
              const bytes = new Uint8Array(await response.arrayBuffer());
              const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
              assert.deepEqual([info.width, info.height], [1920, height], format);
              // Each band's middle row, within what a lossy encoder changes in a flat colour.
              for (let i = 0; i < layout.count; i++) {
                const y = layout.top + i * layout.band + layout.band / 2;
                if (y >= height) break;
                const at = (y * info.width + 960) * info.channels;
                const got = [data[at], data[at + 1], data[at + 2]];
                const want = bandColor(i);
                assert.ok(got.every((v, c) => Math.abs(v - want[c]) <= 8), `${format} band ${i}`);
              }
            }
          },
        );
      }

      await t.step("12000 px at scale 2: 3840x24000 band by band, and it exports", async () => {
        const path = "/long/12000";
        const { json, png } = await shapes.shoot(path, { scale: 2 });
        assert.deepEqual([json.width, json.height], [3840, 24_000]);
        assert.ok(json.width * json.height <= MAX_PIXELS);
        assert.equal(json.truncated, undefined, "not cut");
        const layout = longBands(path, 2);
        const image = await samplePng(png, { rows: bandRows(layout) });
        assertBands(image, layout, 1920, "the 12000 px page at 2x");

        // The export does not depend on the backend that rendered: once is enough. WebP
        // cannot hold a side past 16383 px; JPEG and PNG can.
        if (backend !== "local") return;
        const form = new FormData();
        form.set("image", new Blob([png.slice()], { type: "image/png" }), "page.png");
        form.set("format", "jpeg");
        form.set("qualityPreset", "medium");
        const response = await shapes.app.request("/api/export", { method: "POST", body: form });
        const body = new Uint8Array(await response.arrayBuffer());
        assert.equal(
          response.status,
          200,
          response.status === 200 ? "" : new TextDecoder().decode(body.slice(0, 300)),
        );
        assert.equal(response.headers.get("content-type"), "image/jpeg");
        assert.equal(sniffKind(body), "jpeg");
        const info = readImageInfo("jpeg", body);
        assert.deepEqual([info?.width, info?.height], [3840, 24_000], "the export's size");
      });
    } finally {
      await pages.close();
    }
  });
}
