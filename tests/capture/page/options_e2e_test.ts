/**
 * The capture options end to end: the real app, its lazily launched local Chromium, loopback
 * pages, and the pixels of what comes back. One app (one browser) for the whole file.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { captureHarness } from "../../../testing/capture_harness.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";
import { optionRoutes } from "../../../testing/option_pages.ts";

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

Deno.test("capture options render what they promise, pixel for pixel", async (t) => {
  const pages = servePages(optionRoutes([]));
  const { harness, shoot, capture } = await captureHarness(pages);
  const { app } = harness;

  try {
    await t.step("fullPage: a 5000 px page is 1920x5000 with its bottom band", async () => {
      const { json, image } = await capture("/long", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 5000]);
      assert.deepEqual(image.rgb(960, 4900), BLUE, "the bottom band");
      assert.deepEqual(image.rgb(960, 100), WHITE);
      assert.equal(json.truncated, undefined, "not cut");
    });

    await t.step("fullPage: lazy images far down the page are loaded before the shot", async () => {
      const { image } = await capture("/lazy", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 5200]);
      assert.deepEqual(image.rgb(100, 4100), GREEN, "the lazy image at 4000 px");
      assert.equal(pages.hits.get("/img/green.svg"), 1);
    });

    await t.step("fullPage: content an IntersectionObserver reveals is scrolled into", async () => {
      const { image } = await capture("/observed", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 5300]);
      assert.deepEqual(image.rgb(960, 4150), GREEN, "the observer saw the block");
    });

    await t.step("fullPage: a 40000 px page is cut at 32767 px and says truncated", async () => {
      const { json, image } = await capture("/huge", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 32767]);
      assert.equal(json.truncated, true);
      // 1000 px bands alternating from red at the top: 31000-31999 is blue, 32000-32999 red.
      assert.deepEqual(image.rgb(960, 15500), BLUE);
      assert.deepEqual(image.rgb(960, 31500), BLUE);
      assert.deepEqual(image.rgb(960, 32766), RED, "the last row is the cap's");
    });

    await t.step("scale 2: desktop is 3840x2160; mobile scale 3 is 1125x2001", async () => {
      const desktop = await capture("/strip", { scale: 2 });
      assert.deepEqual([desktop.image.width, desktop.image.height], [3840, 2160]);
      assert.deepEqual(desktop.image.rgb(100, 390), RED, "the 200 px strip is 400 px tall");
      assert.deepEqual(desktop.image.rgb(100, 410), WHITE);
      const mobile = await capture("/strip", { scale: 3, deviceType: "mobile" });
      assert.deepEqual([mobile.image.width, mobile.image.height], [1125, 2001]);
    });

    await t.step("selector: the element's box only, 400x300 (800x600 at scale 2)", async () => {
      const { image } = await capture("/card", { selector: "#card" });
      assert.deepEqual([image.width, image.height], [400, 300]);
      for (const [x, y] of [[0, 0], [399, 299], [200, 150]]) {
        assert.deepEqual(image.rgb(x, y), GREEN, `(${x}, ${y})`);
      }
      const sharp = await capture("/card", { selector: "#card", scale: 2 });
      assert.deepEqual([sharp.image.width, sharp.image.height], [800, 600]);
    });

    await t.step("clip: a rectangle of the document, cut to the document and said so", async () => {
      const inside = await capture("/long", { clip: { x: 100, y: 4700, width: 300, height: 200 } });
      assert.deepEqual([inside.image.width, inside.image.height], [300, 200]);
      assert.deepEqual(inside.image.rgb(150, 50), WHITE, "above the bottom band");
      assert.deepEqual(inside.image.rgb(150, 150), BLUE, "the bottom band from 4800 px");
      assert.equal(inside.json.truncated, undefined);
      const past = await capture("/long", { clip: { x: 0, y: 4900, width: 400, height: 400 } });
      assert.deepEqual([past.image.width, past.image.height], [400, 100], "cut at 5000 px");
      assert.deepEqual(past.image.rgb(200, 99), BLUE);
      assert.equal(past.json.truncated, true);
    });

    await t.step("selector: no match is a 400 naming it; invalid CSS is a 400", async () => {
      const missing = await assertEnvelope(
        app,
        await shoot({ url: `${pages.origin}/card`, selector: "#nope" }),
        400,
        "invalid_request",
      );
      assert.match(String(missing.hint), /#nope/);
      const invalid = await assertEnvelope(
        app,
        await shoot({ url: `${pages.origin}/card`, selector: "div[[" }),
        400,
        "invalid_request",
      );
      assert.match(String(invalid.hint), /div\[\[/);
    });

    await t.step("hideSelectors: the strip is gone, the layout is not", async () => {
      const plain = await capture("/strip");
      assert.deepEqual(plain.image.rgb(100, 100), RED);
      const { image } = await capture("/strip", { hideSelectors: [".strip", "#absent"] });
      assert.deepEqual(image.rgb(100, 100), WHITE);
    });

    await t.step("waitForSelector: a late element is waited for", async () => {
      const { image } = await capture("/late", { waitForSelector: "#late" });
      assert.deepEqual(image.rgb(960, 540), BLUE);
    });

    await t.step("waitForSelector: one that never comes is 408 within the budget", async () => {
      const body = await assertEnvelope(
        app,
        await shoot({ url: `${pages.origin}/late`, waitForSelector: "#never" }),
        408,
        "upstream_timeout",
      );
      assert.match(String(body.hint), /#never/);
    });

    await t.step("delayMs: the page's later state is captured", async () => {
      // Settled (the default), the page's 600 ms timer is fast-forwarded: the first frame is
      // what settle: false shows.
      const early = await capture("/changes", { settle: false });
      assert.deepEqual(early.image.rgb(960, 540), RED, "without a delay: before the change");
      const late = await capture("/changes", { delayMs: 1500, settle: false });
      assert.deepEqual(late.image.rgb(960, 540), GREEN);
      const settled = await capture("/changes");
      assert.deepEqual(settled.image.rgb(960, 540), GREEN, "settled: after the change");
    });

    await t.step(
      "cache: same options hit, other options miss, key order is irrelevant",
      async () => {
        const url = `${pages.origin}/long`;
        const again = await capture("/long", { fullPage: true });
        assert.equal(again.json.cached, true);
        const reordered = await shoot({ fullPage: true, scale: 1, url, delayMs: 0 });
        assert.equal((await reordered.json()).cached, true, "defaults do not change the key");
        const other = await capture("/long", { fullPage: true, hideSelectors: [".x"] });
        assert.equal(other.json.cached, false);
        const plain = await capture("/long");
        assert.equal(plain.json.cached, false, "the plain capture is its own entry");
        assert.deepEqual([plain.image.width, plain.image.height], [1920, 1080]);
      },
    );
  } finally {
    await harness.close();
    await pages.close();
  }
});
