/**
 * blockAds and hideCookieBanners end to end: real Chromium, loopback pages mimicking ad slots
 * and consent platforms, and the filter list served by the test itself (never the public one).
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../../testing/app.ts";
import { pngOf } from "../../../testing/capture_app.ts";
import { decodePng, servePages } from "../../../testing/capture_fixtures.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";
import { optionRoutes } from "../../../testing/option_pages.ts";

const RED = [255, 0, 0];
const WHITE = [255, 255, 255];

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

function post(app: { request(path: string, init: RequestInit): Response | Promise<Response> }) {
  return async (body: Record<string, unknown>) =>
    await app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
}

Deno.test("blockAds and hideCookieBanners clean the page before the shot", async (t) => {
  const choices: string[] = [];
  const pages = servePages(optionRoutes(choices));
  const harness = await createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      CAPTURE_TIMEOUT_MS: "8000",
      ADBLOCK_LIST_URLS: `${pages.origin}/filters.txt`,
    },
  });
  const { app } = harness;
  const shoot = post(app);
  const capture = async (path: string, options: Record<string, unknown> = {}) => {
    const response = await shoot({ url: `${pages.origin}${path}`, ...options });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    return decodePng(pngOf(JSON.parse(text)));
  };

  try {
    await t.step("the server fetched the list itself, once, at start-up", () => {
      assert.equal(pages.hits.get("/filters.txt"), 1);
      assert.ok(harness.log.lines.some((l) => l.msg === "ad filters ready"));
    });

    await t.step("without blockAds the ad slot shows and the ad is requested", async () => {
      const image = await capture("/ads");
      assert.deepEqual(image.rgb(960, 150), RED, "the ad slot");
      assert.equal(pages.hits.get("/ads/banner.svg"), 1);
    });

    await t.step("blockAds: the slot is hidden and the ad request is never made", async () => {
      const image = await capture("/ads", { blockAds: true });
      assert.deepEqual(image.rgb(960, 150), WHITE, "the slot is gone");
      assert.deepEqual(image.rgb(100, 100), WHITE, "the ad image is not drawn either");
      assert.equal(pages.hits.get("/ads/banner.svg"), 1, "no second request for the ad");
      assert.equal(pages.hits.get("/ads"), 2, "the page itself loaded");
    });

    await t.step("a plain capture shows the consent dialogs (the control)", async () => {
      for (const path of ["/onetrust", "/didomi", "/cookiebot"]) {
        const image = await capture(path);
        assert.deepEqual(image.rgb(960, 1000), RED, `${path} dialog is there`);
      }
      assert.deepEqual(choices, []);
    });

    await t.step("hideCookieBanners: OneTrust and Didomi are answered with reject", async () => {
      for (
        const [path, choice] of [["/onetrust", "onetrust-reject"], ["/didomi", "didomi-disagree"]]
      ) {
        const image = await capture(path, { hideCookieBanners: true });
        assert.deepEqual(image.rgb(960, 1000), WHITE, `${path} dialog is gone`);
        assert.ok(choices.includes(choice), `${path}: the reject button was pressed`);
      }
      assert.ok(!choices.some((c) => c.includes("agree") && !c.includes("disagree")));
    });

    await t.step("hideCookieBanners: a dialog no rule answers is hidden", async () => {
      const image = await capture("/cookiebot", { hideCookieBanners: true });
      assert.deepEqual(image.rgb(960, 1000), WHITE);
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});

Deno.test("blockAds answers 503 with a hint while no filter list could ever be loaded", async () => {
  const harness = await createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      ADBLOCK_LIST_URLS: `http://127.0.0.1:${closedPort()}/easylist.txt`,
    },
  });
  try {
    assert.ok(harness.log.lines.some((l) => l.msg === "filter list could not be fetched"));
    const response = await post(harness.app)({ url: "http://127.0.0.1:9/", blockAds: true });
    const body = await assertEnvelope(harness.app, response, 503, "upstream_unavailable");
    assert.match(String(body.hint), /ADBLOCK_LIST_URLS/);
    assert.equal(harness.deps.screenshots.stats().flights, 0, "nothing was rendered");
  } finally {
    await harness.close();
  }
});
