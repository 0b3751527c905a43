/**
 * The local backend's per-capture limits and page lockdown with real Chromium: a page over its
 * byte budget is cut off and the capture still answers; pages and their workers have no WebRTC;
 * windows a page opens are closed. (Loopback pages, so ALLOW_PRIVATE_NETWORK is on here: the
 * lockdown applies whatever that setting is.)
 */
import assert from "node:assert/strict";
import { createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import {
  reportRoutes,
  schemePage,
  servePages,
  WEBRTC_LOCKED_DOWN,
  webrtcProbe,
} from "../../../testing/capture_fixtures.ts";

const BUDGET = 1024 * 1024;

Deno.test("local: over its byte budget a page is cut off, the capture answers, WebRTC and popups are gone", async (t) => {
  const probe = reportRoutes();
  // Scripts, which Chromium reads to the end (an undecodable image would be dropped early).
  const big = `/*${"x".repeat(400 * 1024)}*/`;
  const pages = servePages({
    "/heavy": () =>
      new Response(
        schemePage(
          Array.from({ length: 8 }, (_, i) => `<script src="/blob?${i}"></script>`).join(""),
        ),
        { headers: { "content-type": "text/html" } },
      ),
    "/blob": () => new Response(big, { headers: { "content-type": "text/javascript" } }),
    "/lockdown": () =>
      new Response(
        schemePage(`<script>${
          webrtcProbe(`(seen) => {
            seen.open = String(window.open("/popup-target"));
            fetch("/report", { method: "POST", body: JSON.stringify(seen) });
          }`)
        }</script><img src="/after-report">`),
        { headers: { "content-type": "text/html" } },
      ),
    ...probe.routes,
  });
  const log = createMemoryLogger();
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    byteBudget: BUDGET,
    poolSize: 1,
    log,
  });
  const shoot = (path: string) =>
    capturer.capture({
      url: `${pages.origin}${path}`,
      deviceType: "desktop",
      colorScheme: "light",
    });
  try {
    await t.step("a page over budget still gives a screenshot, and the cut is logged", async () => {
      const result = await shoot("/heavy");
      assert.equal(result.targetStatus, 200);
      assert.ok(result.image.byteLength > 0);
      const served = pages.hits.get("/blob") ?? 0;
      assert.ok(served >= 3, `scripts requested (${served})`);
      const cut = log.lines.filter((l) => l.msg === "capture byte budget exceeded; page cut off");
      assert.equal(cut.length, 1);
      assert.equal(cut[0].budget, BUDGET);
      // The next capture has a budget of its own.
      assert.equal((await shoot("/")).targetStatus, 200);
    });
    await t.step("no WebRTC in the page or its workers, no window.open", async () => {
      const result = await shoot("/lockdown");
      assert.equal(result.targetStatus, 200);
      assert.deepEqual(probe.report(), { ...WEBRTC_LOCKED_DOWN, open: "null" });
      assert.equal(pages.hits.get("/popup-target"), undefined, "the popup never loaded");
    });
  } finally {
    await capturer.close();
    await pages.close();
  }
});
