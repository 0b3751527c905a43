/**
 * The newer capture options on the "chromium-remote" backend (a second Chromium plays the
 * fleet): the same render path as the local backend, but its request guard intercepts every
 * request, so credentials must chain with it and reach the target's origin only.
 */
import assert from "node:assert/strict";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { decodePng, servePages } from "../../../testing/capture_fixtures.ts";
import { nextOptionRoutes, type Reports } from "../../../testing/option_next_pages.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { remoteShooter, remoteWithFilters } from "../../../testing/remote_filters.ts";

const GREEN = [0, 255, 0];
const WHITE = [255, 255, 255];
const SECRET = "remote-secret-5521";

Deno.test("remote captures honour size, device, styles, scripts, click, removal, transparency, annoyances and credentials", async (t) => {
  await using remote = await startRemoteChromium();
  const reports: Reports = new Map();
  const pages = servePages(nextOptionRoutes(reports));
  // Another origin (a second port) that records the Authorization each request carried.
  const otherSeen: (string | null)[] = [];
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    otherSeen.push(request.headers.get("authorization"));
    return new Response("x");
  });
  const otherOrigin = `http://127.0.0.1:${other.addr.port}`;
  await using remoteFilters = await remoteWithFilters(remote, {
    annoyanceUrls: [`${pages.origin}/annoyances.txt`],
  });
  const { capturer, log } = remoteFilters;
  const capture = remoteShooter(capturer, pages.origin);
  const shoot = async (path: string, extra: Partial<CaptureJob> = {}) => {
    const result = await capture(path, extra);
    return { result, image: decodePng(result.image) };
  };
  try {
    await t.step("width/height 768x1024, seen by the page", async () => {
      const { image } = await shoot("/size", { options: { width: 768, height: 1024 } });
      assert.deepEqual([image.width, image.height], [768, 1024]);
      assert.deepEqual([reports.get("size")?.width, reports.get("size")?.height], [768, 1024]);
    });
    await t.step("device galaxy-s23: 1080x2340 and its user agent", async () => {
      const { image } = await shoot("/size", {
        deviceType: "mobile",
        options: { device: "galaxy-s23" },
      });
      assert.deepEqual([image.width, image.height], [1080, 2340]);
      assert.match(String(reports.get("size")?.userAgent), /SM-S911B/);
    });
    await t.step("httpStatus 404, styles, scripts, click and removal", async () => {
      assert.equal((await shoot("/not-found")).result.targetStatus, 404);
      const styled = await shoot("/plain", { options: { styles: "body{background:#00ff00}" } });
      assert.deepEqual(styled.image.rgb(960, 540), GREEN);
      const scripted = await shoot("/plain", {
        options: { scripts: ["document.body.style.background = '#00ff00'"] },
      });
      assert.deepEqual(scripted.image.rgb(960, 540), GREEN, "scripts ran in the remote page");
      const clicked = await shoot("/panel", { options: { clickSelector: "#toggle" } });
      assert.deepEqual(clicked.image.rgb(960, 700), GREEN);
      const removed = await shoot("/stack", { options: { removeSelectors: [".banner"] } });
      assert.deepEqual(removed.image.rgb(960, 100), [0, 0, 255]);
    });
    await t.step("transparent element corners, hidden chat widget", async () => {
      const { image } = await shoot("/badge", {
        options: { selector: "#badge", transparent: true },
      });
      assert.equal(image.alpha(0, 0), 0);
      assert.equal(image.alpha(100, 100), 255);
      const chat = await shoot("/chat", { options: { hideAnnoyances: true } });
      assert.deepEqual(chat.image.rgb(1870, 1030), WHITE);
    });
    await t.step("headers reach the target's origin, not another origin", async () => {
      const seen: Record<string, string | null> = {};
      const target = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
        seen[new URL(request.url).pathname] = request.headers.get("authorization");
        return new Response(
          `<!doctype html><img src="${otherOrigin}/pixel"><img src="/own">`,
          { headers: { "content-type": "text/html" } },
        );
      });
      try {
        await capturer.capture({
          url: `http://127.0.0.1:${target.addr.port}/account`,
          deviceType: "desktop",
          colorScheme: "light",
          credentials: { headers: { Authorization: `Bearer ${SECRET}` } },
        });
        assert.equal(seen["/account"], `Bearer ${SECRET}`);
        assert.equal(seen["/own"], `Bearer ${SECRET}`);
        assert.deepEqual(otherSeen, [null], "the other origin was asked, without it");
        assert.doesNotMatch(JSON.stringify(log.lines), new RegExp(SECRET));
      } finally {
        await target.shutdown();
      }
    });
  } finally {
    await pages.close();
    await other.shutdown();
  }
});
