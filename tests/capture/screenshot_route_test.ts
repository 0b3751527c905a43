import assert from "node:assert/strict";
import type { Store } from "../../lib/store/store.ts";
import { manualClock } from "../../testing/app.ts";
import { eventually } from "../../testing/wait.ts";
import { createCaptureApp, pngOf } from "../../testing/capture_app.ts";
import { pngSize } from "../../testing/png.ts";
import { shadeOf, solidCapturer } from "../../testing/solid_capturer.ts";

Deno.test("a desktop capture is a 1920x1080 PNG with its metadata and headers", async () => {
  const t = await createCaptureApp();
  try {
    const res = await t.shoot({ url: "HTTPS://Example.COM:443/page?q=1#top" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "age",
      "cached",
      "colorScheme",
      "deviceType",
      "format",
      "height",
      "httpStatus",
      "page",
      "screenshot",
      "strategy",
      "url",
      "width",
    ]);
    assert.deepEqual([body.width, body.height], [1920, 1080]);
    assert.equal(body.url, "https://example.com/page?q=1");
    assert.equal(body.cached, false);
    assert.equal(body.httpStatus, 200);
    assert.equal(body.strategy, "test-solid");
    assert.equal(body.deviceType, "desktop");
    assert.equal(body.colorScheme, "light");
    assert.equal(body.format, "png");
    assert.doesNotMatch(body.screenshot, /^data:/);
    assert.deepEqual(pngSize(pngOf(body)), { width: 1920, height: 1080 });
    assert.ok(shadeOf(pngOf(body)) > 128, "light scheme gives light pixels");
    assert.equal(res.headers.get("x-cache"), "miss");
    assert.equal(res.headers.get("x-target-status"), "200");
    assert.equal(res.headers.get("x-ratelimit-limit"), "10000");
    assert.deepEqual(t.capture.jobs, [
      { url: "https://example.com/page?q=1", deviceType: "desktop", colorScheme: "light" },
    ]);
    const line = t.log.lines.find((l) => l.msg === "request" && l.path === "/api/screenshot");
    assert.equal(line?.cache, "miss");
    assert.equal(line?.strategy, "test-solid");
  } finally {
    await t.close();
  }
});

Deno.test("a mobile dark capture is 375x667 with dark pixels", async () => {
  const t = await createCaptureApp();
  try {
    const res = await t.shoot({
      url: "https://example.com",
      deviceType: "mobile",
      colorScheme: "dark",
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(pngSize(pngOf(body)), { width: 375, height: 667 });
    assert.ok(shadeOf(pngOf(body)) < 128, "dark scheme gives dark pixels");
    assert.equal(body.deviceType, "mobile");
    assert.equal(body.colorScheme, "dark");
  } finally {
    await t.close();
  }
});

Deno.test("a repeat is served from the cache with identical bytes, even if spelled differently", async () => {
  const t = await createCaptureApp();
  try {
    const first = await (await t.shoot({ url: "https://example.com/a" })).json();
    const res = await t.shoot({ url: "https://EXAMPLE.com:443/a#section" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-cache"), "hit");
    assert.equal(res.headers.get("x-target-status"), "200");
    const second = await res.json();
    assert.equal(second.cached, true);
    assert.equal(second.strategy, "test-solid", "the backend that made the cached image");
    assert.equal(second.screenshot, first.screenshot);
    assert.equal(t.capture.jobs.length, 1);
    const line = t.log.lines.findLast((l) => l.msg === "request");
    assert.equal(line?.cache, "hit");
  } finally {
    await t.close();
  }
});

Deno.test("forceRefresh renders anew and replaces the cached entry", async () => {
  const t = await createCaptureApp();
  try {
    const first = await (await t.shoot({ url: "https://example.com/" })).json();
    const refreshed = await (await t.shoot({ url: "https://example.com/", forceRefresh: true }))
      .json();
    assert.equal(refreshed.cached, false);
    assert.notEqual(refreshed.screenshot, first.screenshot);
    const after = await (await t.shoot({ url: "https://example.com/" })).json();
    assert.equal(after.cached, true);
    assert.equal(after.screenshot, refreshed.screenshot);
    assert.equal(t.capture.jobs.length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("device type and colour scheme are separate cache keys", async () => {
  const t = await createCaptureApp();
  try {
    const variants = ["desktop", "mobile"].flatMap((deviceType) =>
      ["light", "dark"].map((colorScheme) => ({
        url: "https://example.com/",
        deviceType,
        colorScheme,
      }))
    );
    const screenshots = new Set<string>();
    for (const variant of variants) {
      const body = await (await t.shoot(variant)).json();
      assert.equal(body.cached, false, JSON.stringify(variant));
      screenshots.add(body.screenshot);
    }
    assert.equal(screenshots.size, 4);
    for (const variant of variants) {
      const body = await (await t.shoot(variant)).json();
      assert.equal(body.cached, true, JSON.stringify(variant));
      assert.ok(screenshots.has(body.screenshot));
    }
    assert.equal(t.capture.jobs.length, 4);
  } finally {
    await t.close();
  }
});

Deno.test("a cached capture expires after CACHE_TTL_SECONDS on the injected clock", async () => {
  const clock = manualClock();
  const t = await createCaptureApp({ env: { CACHE_TTL_SECONDS: "60" }, deps: { clock } });
  try {
    await (await t.shoot({ url: "https://example.com/" })).body?.cancel();
    // The cache write ends after the answer; the entry's life starts there.
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    clock.advance(59_000);
    assert.equal((await (await t.shoot({ url: "https://example.com/" })).json()).cached, true);
    clock.advance(2_000);
    assert.equal((await (await t.shoot({ url: "https://example.com/" })).json()).cached, false);
    assert.equal(t.capture.jobs.length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("identical concurrent requests through the endpoint render once", async () => {
  const t = await createCaptureApp();
  try {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => t.shoot({ url: "https://example.com/busy" })),
    );
    const bodies = await Promise.all(responses.map((r) => (assert.equal(r.status, 200), r.json())));
    assert.equal(t.capture.jobs.length, 1);
    assert.ok(bodies.every((b) => b.screenshot === bodies[0].screenshot));
  } finally {
    await t.close();
  }
});

Deno.test("the target's HTTP status is reported, and omitted when unknown", async () => {
  for (const [targetStatus, header] of [[404, "404"], [null, null]] as const) {
    const t = await createCaptureApp({ deps: { capture: solidCapturer({ targetStatus }) } });
    try {
      const res = await t.shoot({ url: "https://example.com/missing" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-target-status"), header);
      await res.body?.cancel();
    } finally {
      await t.close();
    }
  }
});

Deno.test("a failing cache store is logged and never fails the capture", async () => {
  const kv = await Deno.openKv(":memory:");
  const broken: Store = {
    kind: "deno-kv",
    getValue: () => Promise.reject(new Error("store down")),
    setValue: () => Promise.reject(new Error("store down")),
    getVersioned: () => Promise.reject(new Error("store down")),
    setValueIfVersion: () => Promise.reject(new Error("store down")),
    getBlob: () => Promise.reject(new Error("store down")),
    setBlob: () => Promise.reject(new Error("store down")),
    deleteBlobs: () => Promise.reject(new Error("store down")),
    hitWindow: () => Promise.reject(new Error("store down")),
    refundWindow: () => Promise.reject(new Error("store down")),
    close: () => Promise.resolve(kv.close()),
  };
  const t = await createCaptureApp({ deps: { store: broken } });
  try {
    const writeFailures = () =>
      t.log.lines.filter((l) => l.msg === "capture cache write failed").length;
    for (let i = 0; i < 2; i++) {
      const res = await t.shoot({ url: "https://example.com/" });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).cached, false);
      // The answer comes before the write ends; until then the render is the entry to join.
      await eventually(() => writeFailures() === i + 1, "the failed write is over");
    }
    const warnings = t.log.lines.filter((l) => l.level === "warn").map((l) => l.msg);
    assert.ok(warnings.includes("capture cache read failed"));
    assert.ok(warnings.includes("capture cache write failed"));
  } finally {
    await t.close();
    await broken.close();
  }
});
