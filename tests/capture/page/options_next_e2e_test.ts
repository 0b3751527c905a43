/**
 * The newer capture options end to end on the local backend: the real app, its Chromium,
 * loopback pages, and the pixels and reports that come back. One app for the whole file.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { captureHarness } from "../../../testing/capture_harness.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";
import { nextOptionRoutes, type Reports } from "../../../testing/option_next_pages.ts";

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

Deno.test("the newer capture options do what they say, in real Chromium", async (t) => {
  const reports: Reports = new Map();
  const pages = servePages(nextOptionRoutes(reports));
  const { harness, shoot, capture } = await captureHarness(pages, {
    ANNOYANCE_LIST_URLS: `${pages.origin}/annoyances.txt`,
  });
  const { app } = harness;

  try {
    await t.step("httpStatus: a 404 page is captured and says 404", async () => {
      const { json, image } = await capture("/not-found");
      assert.equal(json.httpStatus, 404);
      assert.deepEqual(image.rgb(960, 540), BLUE);
      const ok = await capture("/size");
      assert.equal(ok.json.httpStatus, 200);
    });

    await t.step("failOnHttpError: the 404 page is a 502 naming 404", async () => {
      const url = `${pages.origin}/not-found`;
      const body = await assertEnvelope(
        app,
        await shoot({ url, failOnHttpError: true, forceRefresh: true }),
        502,
        "upstream_failed",
      );
      assert.match(String(body.hint), /404/);
    });
    await t.step("width/height: 1440x900 and 768x1024, by the PNG and by the page", async () => {
      for (const [width, height] of [[1440, 900], [768, 1024]]) {
        const { image } = await capture("/size", { width, height });
        assert.deepEqual([image.width, image.height], [width, height]);
        const seen = reports.get("size");
        assert.deepEqual([seen?.width, seen?.height], [width, height]);
      }
    });

    await t.step("device: iphone-15 is 393x852 at 3 with its user agent and touch", async () => {
      const { json, image } = await capture("/size", { device: "iphone-15" });
      assert.deepEqual([image.width, image.height], [1179, 2556]);
      assert.equal(json.deviceType, "mobile");
      const seen = reports.get("size");
      assert.deepEqual([seen?.width, seen?.height, seen?.dpr, seen?.touch], [393, 852, 3, true]);
      assert.match(String(seen?.userAgent), /iPhone OS 17_0/);
      assert.match(pages.lastUserAgent ?? "", /iPhone OS 17_0/, "the server saw it too");
    });
    await t.step("styles: the caller's CSS is applied", async () => {
      const { image } = await capture("/plain", {
        styles: "body { background: #00ff00 !important; }",
      });
      assert.deepEqual(image.rgb(960, 540), GREEN);
    });

    await t.step("clickSelector: a click expands the panel; no match is a 400", async () => {
      const before = await capture("/panel");
      assert.deepEqual(before.image.rgb(960, 700), WHITE);
      const { image } = await capture("/panel", { clickSelector: "#toggle" });
      assert.deepEqual(image.rgb(960, 700), GREEN, "the panel below the button");
      const body = await assertEnvelope(
        app,
        await shoot({ url: `${pages.origin}/panel`, clickSelector: "#nope" }),
        400,
        "invalid_request",
      );
      assert.match(String(body.hint), /#nope/);
    });

    await t.step(
      "removeSelectors: the banner leaves the layout; hideSelectors keep it",
      async () => {
        const plain = await capture("/stack");
        assert.deepEqual(plain.image.rgb(960, 100), RED);
        const hidden = await capture("/stack", { hideSelectors: [".banner"] });
        assert.deepEqual(hidden.image.rgb(960, 100), WHITE, "the space stays");
        const removed = await capture("/stack", { removeSelectors: [".banner"] });
        assert.deepEqual(removed.image.rgb(960, 100), BLUE, "the block below moved up");
      },
    );
    await t.step(
      "transparent: an element's corners have alpha 0, its centre is opaque",
      async () => {
        const { image } = await capture("/badge", { selector: "#badge", transparent: true });
        assert.deepEqual([image.width, image.height], [200, 200]);
        for (const [x, y] of [[0, 0], [199, 0], [0, 199], [199, 199]]) {
          assert.equal(image.alpha(x, y), 0, `corner (${x}, ${y})`);
        }
        assert.equal(image.alpha(100, 100), 255);
        assert.deepEqual(image.rgb(100, 100), GREEN);
        const opaque = await capture("/badge", { selector: "#badge" });
        assert.equal(opaque.image.alpha(0, 0), 255, "without it: the white default");
        assert.deepEqual(opaque.image.rgb(0, 0), WHITE);
      },
    );
    await t.step("hideAnnoyances: Intercom's launcher is hidden by the list's rule", async () => {
      const plain = await capture("/chat");
      assert.deepEqual(plain.image.rgb(1870, 1030), RED, "the bubble");
      const { image } = await capture("/chat", { hideAnnoyances: true });
      assert.deepEqual(image.rgb(1870, 1030), WHITE);
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});
