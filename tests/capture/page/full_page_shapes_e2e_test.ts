/**
 * Full pages of the page shapes people capture (testing/page_shapes.ts), on both capture
 * backends, judged by decoded pixels band by band: fixed and sticky headers once at the top, an
 * app shell's scrolling `<main>` unrolled with its lazy images loaded, chat logs that start at
 * the bottom shown whole and in order, a docs layout and a page where the document and a box
 * both scroll shown as the document.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { assertBands, type BandLayout, bandRows, runsOf } from "../../../testing/band_checks.ts";
import { samplePng } from "../../../testing/png_rows.ts";
import { BACKENDS, shapeHarness } from "../../../testing/shape_harness.ts";
import {
  APP_SHELL,
  bandColor,
  BOTH,
  DOCS,
  HEADER,
  LAZY,
  NAV,
  OBSERVED,
  SHAPE,
  shapeRoutes,
} from "../../../testing/page_shapes.ts";

const WIDTH = 1920;
const VIEWPORT_HEIGHT = 1080;

/** SHAPE.bands bands of SHAPE.band px from `top`. */
const shapeBands = (top: number, count = SHAPE.bands): BandLayout => ({
  top,
  band: SHAPE.band,
  count,
  color: bandColor,
});

for (const backend of BACKENDS) {
  Deno.test(`full pages of app shells, chats, docs and headers are right band by band (${backend})`, async (t) => {
    const pages = servePages(shapeRoutes());
    await using shapes = await shapeHarness(pages, backend);

    /** A full page of `path`, checked for size, untruncated, and sampled at `rows`/`columns`. */
    const shoot = async (
      path: string,
      height: number,
      wanted: { rows: number[]; columns?: number[] },
    ) => {
      const { json, png } = await shapes.shoot(path);
      assert.deepEqual([json.width, json.height], [WIDTH, height], "the whole page, once");
      assert.equal(json.truncated, undefined, "not cut");
      return await samplePng(png, wanted);
    };

    try {
      for (const kind of ["fixed", "sticky"]) {
        await t.step(`a ${kind} header is drawn once, at the top, over every band`, async () => {
          const layout = shapeBands(SHAPE.header);
          const height = SHAPE.header + SHAPE.bands * SHAPE.band;
          const image = await shoot(`/shapes/${kind}-header`, height, {
            rows: bandRows(layout),
            columns: [960],
          });
          assert.deepEqual(runsOf(image, 960, HEADER), [[0, SHAPE.header]], "header runs");
          assertBands(image, layout, 960, `${kind} header page`);
        });
      }

      // main in a flex row, or pinned to the viewport by its offsets (absolute, top and bottom).
      for (
        const [path, images] of [["/shapes/app-shell", ""], ["/shapes/app-shell-pinned", "-pinned"]]
      ) {
        await t.step(
          `app shell (${path}): main unrolled under one app bar, beside the nav, lazy images in`,
          async () => {
            const { bar, nav, bands, imageLeft, imageTop, imageSize } = APP_SHELL;
            const layout = shapeBands(bar, bands);
            // The viewport plus what main hides below its fold.
            const mainView = VIEWPORT_HEIGHT - bar;
            const height = VIEWPORT_HEIGHT + bands * SHAPE.band - mainView;
            const imageAt = (band: number) => ({
              x: nav + imageLeft + imageSize / 2,
              y: bar + band * SHAPE.band + imageTop + imageSize / 2,
            });
            const lazy = imageAt(APP_SHELL.lazyBand);
            const observed = imageAt(APP_SHELL.observedBand);
            const image = await shoot(path, height, {
              rows: [...bandRows(layout), lazy.y, observed.y, bar + 10, VIEWPORT_HEIGHT - 10],
              columns: [100, 1500],
            });
            assert.deepEqual(runsOf(image, 1500, HEADER), [[0, bar]], "app bar runs over main");
            assert.deepEqual(runsOf(image, 100, HEADER), [[0, bar]], "app bar runs over the nav");
            assert.deepEqual(image.rgb(100, bar + 10), NAV, "the side nav below the bar");
            assert.deepEqual(image.rgb(100, VIEWPORT_HEIGHT - 10), NAV, "the nav's first screen");
            assertBands(image, layout, 1500, "main's content");
            assert.deepEqual(image.rgb(lazy.x, lazy.y), LAZY, "the lazy image inside main");
            assert.deepEqual(image.rgb(observed.x, observed.y), OBSERVED, "the observed image");
            assert.ok(pages.hits.get(`/shapes/lazy${images}.svg`), "the lazy image was requested");
            assert.ok(
              pages.hits.get(`/shapes/observed${images}.svg`),
              "the observer's image was requested",
            );
          },
        );
      }

      for (const variant of ["reverse", "bottom"]) {
        await t.step(
          `chat scrolled to its bottom (${variant}): the whole log, in order`,
          async () => {
            const layout = shapeBands(SHAPE.header);
            const height = SHAPE.header + SHAPE.bands * SHAPE.band;
            const image = await shoot(`/shapes/chat-${variant}`, height, {
              rows: bandRows(layout),
              columns: [960],
            });
            assert.deepEqual(runsOf(image, 960, HEADER), [[0, SHAPE.header]], "title bar runs");
            assertBands(image, layout, 960, "the conversation");
          },
        );
      }

      await t.step("docs: the document's whole content, the sidebar as at the top", async () => {
        const content = shapeBands(0, DOCS.bands);
        const firstScreen = Math.floor(VIEWPORT_HEIGHT / SHAPE.band);
        const sidebar: BandLayout = {
          ...shapeBands(0, firstScreen),
          color: (i) => bandColor(DOCS.firstBand + i),
        };
        const x = DOCS.sidebar / 2;
        const image = await shoot("/shapes/docs", DOCS.bands * SHAPE.band, {
          rows: [...bandRows(content), ...bandRows(sidebar)],
          columns: [x],
        });
        assertBands(image, content, 1200, "the content");
        assertBands(image, sidebar, x, "the sidebar's first screen");
        const firstSideBand = bandColor(DOCS.firstBand);
        assert.deepEqual(runsOf(image, x, firstSideBand), [[0, SHAPE.band]], "sidebar once");
      });

      await t.step("document and box both scroll: the document, the box at its top", async () => {
        const doc = shapeBands(0);
        const box: BandLayout = {
          top: BOTH.top,
          band: BOTH.band,
          count: BOTH.height / BOTH.band,
          color: (i) => bandColor(BOTH.firstBand + i),
        };
        const image = await shoot("/shapes/both", SHAPE.bands * SHAPE.band, {
          rows: [...bandRows(doc), ...bandRows(box)],
        });
        assertBands(image, doc, 100, "the document");
        assertBands(image, box, BOTH.left + BOTH.width / 2, "the box's first screen");
      });
    } finally {
      await pages.close();
    }
  });
}
