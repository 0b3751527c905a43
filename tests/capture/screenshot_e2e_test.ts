/**
 * POST /api/screenshot end to end: the real app, the real lazily launched Chromium capturer it
 * builds from config, and pages served on loopback by the test. One app (one browser) for the
 * whole file; each request comes from its own client IP (TRUST_PROXY_HOPS=1 + X-Forwarded-For)
 * so the small per-IP limit only bites in the step that tests it.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../testing/app.ts";
import { pngOf } from "../../testing/capture_app.ts";
import { decodePng, schemePage, servePages } from "../../testing/capture_fixtures.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { pngSize } from "../../testing/png.ts";

const LIMIT = 3;

const html = (body: string) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });

/** A page painted one solid colour. */
const solidPage = (color: string) =>
  `<!doctype html><meta name="viewport" content="width=device-width">` +
  `<body style="margin:0;height:100vh;background:${color}"></body>`;

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("POST /api/screenshot renders loopback pages with real Chromium end to end", async (t) => {
  let changingColor = "#ff0000";
  const pages = servePages({
    "/changing": () => html(solidPage(changingColor)),
    // Slow enough that every concurrent request arrives while the one render is in flight.
    "/once": async (_request, hold) => (await hold(300), html(schemePage())),
  });
  const harness = await createTestApp({
    env: {
      // The harness renders loopback pages, so it must opt in to private addresses.
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      TRUST_PROXY_HOPS: "1",
      CAPTURE_TIMEOUT_MS: "3000",
    },
  });
  const { app } = harness;
  let client = 0;
  const shoot = (body: unknown, ip = `198.51.100.${++client}`) =>
    app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify(body),
    });
  /** A 200 capture: status, content type, then the body with its decoded PNG. */
  const capture = async (body: Record<string, unknown>, ip?: string) => {
    const response = await shoot(body, ip);
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const json = JSON.parse(text);
    return { response, json, png: pngOf(json) };
  };

  try {
    await t.step(
      "desktop and mobile, light and dark: exact sizes, right pixels, four keys",
      async () => {
        const variants = [
          { deviceType: "desktop", colorScheme: "light", size: [1920, 1080], rgb: [255, 255, 255] },
          { deviceType: "desktop", colorScheme: "dark", size: [1920, 1080], rgb: [0, 0, 0] },
          { deviceType: "mobile", colorScheme: "light", size: [375, 667], rgb: [255, 255, 255] },
          { deviceType: "mobile", colorScheme: "dark", size: [375, 667], rgb: [0, 0, 0] },
        ];
        const first = new Map<string, string>();
        for (const { deviceType, colorScheme, size, rgb } of variants) {
          const label = `${deviceType}/${colorScheme}`;
          const { response, json, png } = await capture({
            url: `${pages.origin}/`,
            deviceType,
            colorScheme,
          });
          assert.equal(json.cached, false, `${label} renders`);
          assert.equal(json.strategy, "chromium-local");
          assert.equal(json.url, `${pages.origin}/`);
          assert.equal(json.deviceType, deviceType);
          assert.equal(json.colorScheme, colorScheme);
          assert.equal(response.headers.get("x-cache"), "miss");
          assert.equal(response.headers.get("x-target-status"), "200");
          const { width, height } = pngSize(png);
          assert.deepEqual([width, height], size, label);
          const decoded = decodePng(png);
          assert.deepEqual(decoded.rgb(size[0] >> 1, size[1] >> 1), rgb, `${label} pixels`);
          first.set(label, json.screenshot);
        }
        assert.equal(new Set(first.values()).size, 4, "four different images");
        assert.equal(pages.hits.get("/"), 4, "each key rendered once");
        for (const { deviceType, colorScheme } of variants) {
          const { response, json } = await capture({
            url: `${pages.origin}/`,
            deviceType,
            colorScheme,
          });
          assert.equal(json.cached, true, `${deviceType}/${colorScheme} is a hit`);
          assert.equal(json.strategy, "chromium-local", "the backend that made the cached image");
          assert.equal(json.screenshot, first.get(`${deviceType}/${colorScheme}`), "same bytes");
          assert.equal(response.headers.get("x-cache"), "hit");
        }
        assert.equal(pages.hits.get("/"), 4, "hits never reach the page");
      },
    );

    await t.step("forceRefresh renders the changed page and replaces the cache entry", async () => {
      const url = `${pages.origin}/changing`;
      const red = await capture({ url });
      assert.equal(red.json.cached, false);
      assert.deepEqual(decodePng(red.png).rgb(960, 540), [255, 0, 0]);
      changingColor = "#0000ff";
      const stale = await capture({ url });
      assert.equal(stale.json.cached, true, "without forceRefresh the cached image stays");
      assert.equal(stale.json.screenshot, red.json.screenshot);
      const blue = await capture({ url, forceRefresh: true });
      assert.equal(blue.json.cached, false);
      assert.equal(blue.json.strategy, "chromium-local");
      assert.deepEqual(decodePng(blue.png).rgb(960, 540), [0, 0, 255]);
      const after = await capture({ url });
      assert.equal(after.json.cached, true);
      assert.equal(after.json.screenshot, blue.json.screenshot, "the refreshed bytes are cached");
      assert.equal(pages.hits.get("/changing"), 2);
    });

    await t.step("five identical concurrent requests share one render", async () => {
      const body = { url: `${pages.origin}/once`, colorScheme: "dark" };
      const results = await Promise.all(Array.from({ length: 5 }, () => capture(body)));
      assert.equal(pages.hits.get("/once"), 1, "the page server saw one document request");
      for (const { json } of results) {
        assert.equal(json.cached, false);
        assert.equal(json.screenshot, results[0].json.screenshot);
      }
    });

    await t.step(
      "a page with an HTTP error status is rendered and its status reported",
      async () => {
        const { response, json, png } = await capture({ url: `${pages.origin}/missing` });
        assert.equal(response.headers.get("x-target-status"), "404");
        assert.equal(json.cached, false);
        assert.deepEqual(decodePng(png).rgb(960, 540), [0, 0, 255], "the site's own 404 page");
      },
    );

    await t.step("a document that never arrives answers the 408 envelope", async () => {
      const response = await shoot({ url: `${pages.origin}/hang` });
      const body = await assertEnvelope(app, response, 408, "upstream_timeout");
      assert.equal(body.screenshot, undefined);
      assert.equal(pages.hits.get("/hang"), 1);
    });

    await t.step(
      "a refused connection answers an envelope, not Chromium's error page",
      async () => {
        const response = await shoot({ url: `http://127.0.0.1:${closedPort()}/` });
        const body = await assertEnvelope(app, response, 500, "upstream_failed");
        assert.match(String(body.hint), /connection refused/);
        assert.equal(body.screenshot, undefined);
      },
    );

    await t.step(`the per-IP limit lets ${LIMIT} through (hits count), then 429`, async () => {
      const ip = "203.0.113.7";
      for (let i = 1; i <= LIMIT; i++) {
        const { response, json } = await capture({ url: `${pages.origin}/` }, ip);
        assert.equal(json.cached, true);
        assert.equal(response.headers.get("x-ratelimit-limit"), String(LIMIT));
        assert.equal(response.headers.get("x-ratelimit-remaining"), String(LIMIT - i));
      }
      const response = await shoot({ url: `${pages.origin}/` }, ip);
      const body = await assertEnvelope(app, response, 429, "rate_limited");
      assert.equal(String(body.retryAfter), response.headers.get("retry-after"));
      assert.match(String(body.hint), new RegExp(`${LIMIT} requests per minute`));
      const other = await capture({ url: `${pages.origin}/` }, "203.0.113.8");
      assert.equal(other.json.cached, true, "another client is not limited");
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});
