/**
 * The capture options through the route with a test capturer: validation envelopes, the jobs
 * the capturer receives, and the cache-key rules (a plain request keeps its old key; options
 * are canonical; a URL purge removes every option variant).
 */
import assert from "node:assert/strict";
import { captureKey, captureUrlKey } from "../../../lib/capture/service/cache.ts";
import { canonicalOptions, optionsDigest } from "../../../lib/capture/request/options.ts";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";
const TOKEN = "an-admin-token-of-at-least-32-chars!";

Deno.test("a job without options keeps the cache key it always had", async () => {
  const job: CaptureJob = { url: URL_A, deviceType: "desktop", colorScheme: "light" };
  const plain = [...captureUrlKey(URL_A), "desktop", "light"];
  assert.deepEqual(await captureKey(job), plain);
  assert.deepEqual(await captureKey({ ...job, options: {} }), plain);
  assert.deepEqual(
    await captureKey({ ...job, options: { fullPage: false, scale: 1, hideSelectors: [] } }),
    plain,
    "options at their defaults are no options",
  );
  const full = await captureKey({ ...job, options: { fullPage: true } });
  assert.deepEqual(full.slice(0, 4), plain, "an option variant sits under the URL's prefix");
  assert.match(String(full[4]), /^[0-9a-f]{32}$/);
});

Deno.test("the default settle keeps today's cache keys; only settle: false changes them", async () => {
  const job: CaptureJob = { url: URL_A, deviceType: "desktop", colorScheme: "light" };
  const plain = await captureKey(job);
  assert.deepEqual(await captureKey({ ...job, options: { settle: true } }), plain);
  assert.deepEqual(canonicalOptions({ settle: true, fullPage: true }), { fullPage: true });
  assert.equal(
    await optionsDigest({ fullPage: true, settle: true }),
    await optionsDigest({ fullPage: true }),
  );
  const raw = await captureKey({ ...job, options: { settle: false } });
  assert.notDeepEqual(raw, plain, "the first frame is its own entry");
  assert.deepEqual(raw.slice(0, 4), plain.slice(0, 4), "under the URL's prefix, purged with it");
  assert.deepEqual(canonicalOptions({ settle: false }), { settle: false });
});

Deno.test("options are canonical: sorted, defaults dropped, order of keys irrelevant", async () => {
  assert.deepEqual(canonicalOptions({ scale: 1, delayMs: 0, blockAds: false }), {});
  assert.deepEqual(
    Object.keys(canonicalOptions({ scale: 2, fullPage: true, blockAds: true })),
    ["blockAds", "fullPage", "scale"],
  );
  const a = await optionsDigest({ fullPage: true, scale: 2, hideSelectors: [".a", ".b"] });
  const b = await optionsDigest({ hideSelectors: [".a", ".b"], scale: 2, fullPage: true });
  assert.equal(a, b);
  assert.notEqual(
    a,
    await optionsDigest({ fullPage: true, scale: 2, hideSelectors: [".b", ".a"] }),
  );
  assert.notEqual(
    a,
    await optionsDigest({ fullPage: true, scale: 3, hideSelectors: [".a", ".b"] }),
  );
  assert.equal(await optionsDigest({ delayMs: 0 }), null);
});

Deno.test("the capturer gets the canonical options, and none for a plain request", async () => {
  const t = await createCaptureApp();
  try {
    for (
      const body of [{ url: URL_A }, {
        url: URL_A,
        fullPage: false,
        scale: 1,
        delayMs: 0,
        settle: true,
      }]
    ) {
      const res = await t.shoot(body);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const res = await t.shoot({ url: URL_A, scale: 2, selector: "#x", extra: "ignored" });
    const raw = await t.shoot({ url: URL_A, settle: false });
    assert.equal(raw.status, 200);
    await raw.body?.cancel();
    assert.equal(res.status, 200);
    const json = await res.json();
    assert.deepEqual([json.width, json.height], [1920, 1080], "the size of the PNG returned");
    assert.equal(json.truncated, undefined);
    assert.deepEqual(t.capture.jobs, [
      { url: URL_A, deviceType: "desktop", colorScheme: "light" },
      {
        url: URL_A,
        deviceType: "desktop",
        colorScheme: "light",
        options: { scale: 2, selector: "#x" },
      },
      { url: URL_A, deviceType: "desktop", colorScheme: "light", options: { settle: false } },
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("same options hit the cache, other options miss, a URL purge removes them all", async () => {
  const t = await createCaptureApp({ env: { CACHE_ADMIN_TOKEN: TOKEN } });
  const cached = async (body: Record<string, unknown>) => {
    const res = await t.shoot({ url: URL_A, ...body });
    assert.equal(res.status, 200);
    return (await res.json()).cached as boolean;
  };
  try {
    const variants = [{}, { fullPage: true }, { fullPage: true, scale: 2 }, {
      hideCookieBanners: true,
    }];
    for (const variant of variants) {
      assert.equal(await cached(variant), false, JSON.stringify(variant));
    }
    for (const variant of variants) {
      assert.equal(await cached(variant), true, JSON.stringify(variant));
    }
    assert.equal(await cached({ scale: 2, fullPage: true, delayMs: 0 }), true, "same, reordered");
    assert.equal(t.capture.jobs.length, 4);
    const res = await t.app.request(`/api/cache?url=${encodeURIComponent(URL_A)}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    assert.deepEqual(await res.json(), { purged: 4 });
    for (const variant of variants) assert.equal(await cached(variant), false, "purged");
  } finally {
    await t.close();
  }
});

Deno.test("bad option values get 400 envelopes; unknown fields are ignored", async () => {
  const t = await createCaptureApp();
  const long = "a".repeat(257);
  const cases: [Record<string, unknown>, "invalid_request" | "unsupported_value"][] = [
    [{ scale: 4 }, "unsupported_value"],
    [{ scale: 1.5 }, "unsupported_value"],
    [{ scale: 0 }, "unsupported_value"],
    [{ scale: "2" }, "invalid_request"],
    [{ fullPage: "yes" }, "invalid_request"],
    [{ blockAds: 1 }, "invalid_request"],
    [{ hideCookieBanners: null }, "invalid_request"],
    [{ delayMs: -1 }, "invalid_request"],
    [{ delayMs: 10_001 }, "invalid_request"],
    [{ delayMs: 1.5 }, "invalid_request"],
    [{ selector: "" }, "invalid_request"],
    [{ selector: long }, "invalid_request"],
    [{ selector: ["#a"] }, "invalid_request"],
    [{ waitForSelector: long }, "invalid_request"],
    [{ hideSelectors: ".a" }, "invalid_request"],
    [{ hideSelectors: Array.from({ length: 21 }, (_, i) => `.a${i}`) }, "invalid_request"],
    [{ hideSelectors: [long] }, "invalid_request"],
    [{ hideSelectors: [3] }, "invalid_request"],
  ];
  try {
    for (const [body, code] of cases) {
      const res = await t.shoot({ url: URL_A, ...body });
      const envelope = await assertEnvelope(t.app, res, 400, code);
      assert.match(
        String(envelope.message),
        new RegExp(Object.keys(body)[0]),
        JSON.stringify(body),
      );
    }
    assert.equal(t.capture.jobs.length, 0, "nothing was rendered");
    const ok = await t.shoot({
      url: URL_A,
      hideSelectors: Array(20).fill(".a"),
      delayMs: 10_000,
      future: 1,
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("a truncated capture says so, from the render and from the cache", async () => {
  const t = await createCaptureApp();
  const capture = t.capture.capture.bind(t.capture);
  t.capture.capture = async (job, signal) => ({ ...await capture(job, signal), truncated: true });
  try {
    for (const expected of [false, true]) {
      const res = await t.shoot({ url: URL_A, fullPage: true });
      const json = await res.json();
      assert.equal(json.cached, expected);
      assert.equal(json.truncated, true);
    }
  } finally {
    await t.close();
  }
});
