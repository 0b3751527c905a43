/**
 * width, height and device through the route with a test capturer: the job the capturer gets,
 * the cache key (a default size keeps the plain key), and the 400s for bad values.
 */
import assert from "node:assert/strict";
import { captureKey, captureUrlKey } from "../../../lib/capture/service/cache.ts";
import { DEVICE_NAMES } from "../../../lib/capture/request/devices.ts";
import { resolveViewport, viewportOf } from "../../../lib/capture/request/viewport.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";

Deno.test("viewportOf: device type, device, and width/height over both", () => {
  assert.deepEqual(viewportOf("desktop"), { width: 1920, height: 1080, scale: 1 });
  assert.deepEqual(viewportOf("mobile", { width: 768 }), { width: 768, height: 667, scale: 1 });
  assert.deepEqual(viewportOf("mobile", { device: "iphone-15" }), {
    width: 393,
    height: 852,
    scale: 3,
  });
  assert.deepEqual(viewportOf("desktop", { device: "laptop-hidpi", scale: 1, height: 800 }), {
    width: 1440,
    height: 800,
    scale: 2,
  });
  assert.equal(viewportOf("desktop", { device: "iphone-15", scale: 2 }).scale, 2);
});

Deno.test("resolveViewport: a device sets the device type; a default size is no option", () => {
  assert.deepEqual(resolveViewport("desktop", { device: "iphone-15" }), {
    deviceType: "mobile",
    options: { device: "iphone-15" },
  });
  assert.deepEqual(resolveViewport("desktop", { width: 1920, height: 1080 }).options, {});
  assert.deepEqual(resolveViewport("mobile", { width: 375, height: 900 }).options, {
    height: 900,
  });
});

Deno.test("the job carries the size and the device's type; the key includes the size", async () => {
  const t = await createCaptureApp();
  try {
    for (
      const body of [
        { width: 1440, height: 900 },
        { width: 1920, height: 1080 },
        { device: "iphone-15" },
        { deviceType: "desktop", device: "ipad-air", width: 800 },
      ]
    ) {
      const res = await t.shoot({ url: URL_A, ...body });
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      await res.body?.cancel();
    }
    const base = { url: URL_A, colorScheme: "light" };
    assert.deepEqual(t.capture.jobs, [
      { ...base, deviceType: "desktop", options: { height: 900, width: 1440 } },
      { ...base, deviceType: "desktop" },
      { ...base, deviceType: "mobile", options: { device: "iphone-15" } },
      { ...base, deviceType: "mobile", options: { device: "ipad-air", width: 800 } },
    ]);
    const plain = await captureKey(t.capture.jobs[1]);
    assert.deepEqual(plain, [...captureUrlKey(URL_A), "desktop", "light"]);
    const sized = await captureKey(t.capture.jobs[0]);
    const other = await captureKey({ ...t.capture.jobs[0], options: { width: 1440, height: 901 } });
    assert.notDeepEqual(sized, plain);
    assert.notDeepEqual(sized, other);
    const again = await t.shoot({ url: URL_A, height: 900, width: 1440 });
    assert.equal((await again.json()).cached, true);
  } finally {
    await t.close();
  }
});

Deno.test("bad sizes and unknown devices are 400s that say what is allowed", async () => {
  const t = await createCaptureApp();
  try {
    const cases: [Record<string, unknown>, "invalid_request" | "unsupported_value", RegExp][] = [
      [{ width: 319 }, "invalid_request", /width/],
      [{ width: 3841 }, "invalid_request", /width/],
      [{ height: 239 }, "invalid_request", /height/],
      [{ height: 2161 }, "invalid_request", /height/],
      [{ width: 1000.5 }, "invalid_request", /width/],
      [{ width: "1440" }, "invalid_request", /width/],
      [{ device: "nokia-3310" }, "unsupported_value", /iphone-15.*laptop/],
      [{ width: 3840, height: 2160, scale: 2 }, "invalid_request", /scale/],
    ];
    for (const [body, code, hint] of cases) {
      const envelope = await assertEnvelope(
        t.app,
        await t.shoot({ url: URL_A, ...body }),
        400,
        code,
      );
      assert.match(String(envelope.hint), hint, JSON.stringify(body));
    }
    assert.equal(t.capture.jobs.length, 0);
    assert.ok(DEVICE_NAMES.length >= 5);
  } finally {
    await t.close();
  }
});
