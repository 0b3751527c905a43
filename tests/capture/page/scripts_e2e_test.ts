/**
 * scripts end to end on the local backend: the caller's JavaScript runs in the page, in order,
 * awaited, before the shot; a throw is a 400 with the page's words, a script that never ends a
 * 504 at the budget; scripts enter the cache key. The real app, its Chromium, loopback pages.
 */
import assert from "node:assert/strict";
import { MAX_SCRIPT_BYTES, MAX_SCRIPTS } from "../../../lib/capture/request/options.ts";
import { html, servePages } from "../../../testing/capture_fixtures.ts";
import { captureHarness } from "../../../testing/capture_harness.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const WHITE = [255, 255, 255];
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];

const PLAIN = `<!doctype html><body style="margin:0;height:100vh;background:#fff"></body>`;

Deno.test("scripts run in the page before the shot, in order, awaited, within the budget", async (t) => {
  const pages = servePages({
    "/plain": () => html(PLAIN),
    "/next": () => html(PLAIN.replace("#fff", "#00ff00")),
  });
  // Room for a promise of a few hundred ms beside two busy cores; the timeout step waits it out.
  const { harness, shoot, capture } = await captureHarness(pages, { CAPTURE_TIMEOUT_MS: "8000" });
  const { app } = harness;
  const url = `${pages.origin}/plain`;
  try {
    await t.step("a script changes the page, and the shot shows it", async () => {
      const { image } = await capture("/plain", {
        scripts: ["document.body.style.background = '#00ff00'"],
      });
      assert.deepEqual(image.rgb(960, 540), GREEN);
    });

    await t.step("in order: the second sees what the first left", async () => {
      const { image } = await capture("/plain", {
        scripts: ["window.chosen = '#ff0000'", "document.body.style.background = window.chosen"],
        forceRefresh: true,
      });
      assert.deepEqual(image.rgb(960, 540), RED);
    });

    await t.step("a promise a script ends with is awaited", async () => {
      const { image } = await capture("/plain", {
        scripts: [
          "new Promise((done) => setTimeout(() => { " +
          "document.body.style.background = '#0000ff'; done(); }, 300))",
        ],
        forceRefresh: true,
      });
      assert.deepEqual(image.rgb(960, 540), BLUE);
    });

    await t.step("a script that navigates: the shot is of the page it went to", async () => {
      const { image } = await capture("/plain", {
        scripts: ["location.href = '/next'"],
        forceRefresh: true,
      });
      assert.deepEqual(image.rgb(960, 540), GREEN);
    });

    await t.step(
      "scripts enter the cache key: another script, or none, is another capture",
      async () => {
        const green = await capture("/plain", {
          scripts: ["document.body.style.background = '#00ff00'"],
        });
        assert.equal(green.json.cached, true, "the same scripts: the first step's capture");
        const plain = await capture("/plain");
        assert.deepEqual(plain.image.rgb(960, 540), WHITE);
      },
    );

    await t.step("a script that throws is a 400 naming it, with the page's message", async () => {
      for (
        const [scripts, index, said] of [
          [["throw new Error('boom at step two')"], 0, /boom at step two/],
          [["1 + 1", "this is not javascript"], 1, /^The page said: SyntaxError: /],
          [["Promise.reject(new TypeError('late refusal'))"], 0, /TypeError: late refusal/],
        ] as const
      ) {
        const body = await assertEnvelope(
          app,
          await shoot({ url, scripts, forceRefresh: true }),
          400,
          "invalid_request",
        );
        assert.match(String(body.message), new RegExp(`scripts\\[${index}\\]`));
        assert.match(String(body.hint), said);
      }
    });

    await t.step("a script still running when the budget ends is a 408 naming it", async () => {
      const body = await assertEnvelope(
        app,
        await shoot({ url, scripts: ["1", "new Promise(() => {})"], forceRefresh: true }),
        408,
        "upstream_timeout",
      );
      assert.match(String(body.message), /scripts\[1\]/);
    });

    await t.step("bounds and contradictions are refused before any page is opened", async () => {
      const refused = [
        { scripts: Array(MAX_SCRIPTS + 1).fill("1") },
        { scripts: ["x".repeat(MAX_SCRIPT_BYTES + 1)] },
        { scripts: [""] },
        { scripts: ["1"], javaScript: false },
      ];
      for (const fields of refused) {
        const body = await assertEnvelope(
          app,
          await shoot({ url, ...fields }),
          400,
          "invalid_request",
        );
        if ("javaScript" in fields) assert.match(String(body.message), /scripts.*javaScript/);
      }
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});
