import assert from "node:assert/strict";
import { createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { decodePng, schemePage, servePages, svg } from "../../../testing/capture_fixtures.ts";

// These tests render loopback pages, so they are the ones that opt in to private addresses.
function loopbackCapturer() {
  return createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
}

const job = (url: string, overrides: Partial<CaptureJob> = {}): CaptureJob => ({
  url,
  deviceType: "desktop",
  colorScheme: "light",
  ...overrides,
});

Deno.test("captures are exactly the viewport: 1920x1080 desktop and 375x667 mobile", async (t) => {
  const pages = servePages();
  const capturer = loopbackCapturer();
  try {
    await t.step("desktop", async () => {
      const result = await capturer.capture(job(`${pages.origin}/`));
      assert.equal(result.strategy, "chromium-local");
      assert.equal(result.targetStatus, 200);
      const png = decodePng(result.image);
      assert.deepEqual([png.width, png.height], [1920, 1080]);
      assert.doesNotMatch(pages.lastUserAgent ?? "", /Headless|Mobile/);
    });
    await t.step("mobile, with touch, a coarse pointer and a phone's user agent", async () => {
      const result = await capturer.capture(job(`${pages.origin}/touch`, { deviceType: "mobile" }));
      const png = decodePng(result.image);
      assert.deepEqual([png.width, png.height], [375, 667]);
      assert.deepEqual(png.rgb(187, 333), [0, 255, 0], "page saw touch emulation");
      assert.match(pages.lastUserAgent ?? "", /Android .* Mobile Safari/);
    });
    await t.step("desktop again after mobile: no touch left over", async () => {
      const png = decodePng((await capturer.capture(job(`${pages.origin}/touch`))).image);
      assert.deepEqual([png.width, png.height], [1920, 1080]);
      assert.deepEqual(png.rgb(960, 540), [255, 0, 0]);
    });
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("colorScheme sets prefers-color-scheme: light pixels vs dark pixels", async () => {
  const pages = servePages();
  const capturer = loopbackCapturer();
  try {
    for (const deviceType of ["desktop", "mobile"] as const) {
      const light = await capturer.capture(job(`${pages.origin}/`, { deviceType }));
      const dark = await capturer.capture(
        job(`${pages.origin}/`, { deviceType, colorScheme: "dark" }),
      );
      assert.deepEqual(decodePng(light.image).rgb(100, 100), [255, 255, 255], deviceType);
      assert.deepEqual(decodePng(dark.image).rgb(100, 100), [0, 0, 0], deviceType);
    }
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("an HTTP error page is rendered as a browser shows it and its status returned", async () => {
  const pages = servePages();
  const capturer = loopbackCapturer();
  try {
    const result = await capturer.capture(job(`${pages.origin}/missing`));
    assert.equal(result.targetStatus, 404);
    assert.deepEqual(decodePng(result.image).rgb(500, 500), [0, 0, 255]);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("images that arrive after DOMContentLoaded, lazy ones included, are waited for", async () => {
  const pages = servePages({
    "/images": () =>
      new Response(
        schemePage(
          `<img src="/slow.svg" style="position:absolute;left:0;top:0">` +
            `<img src="/lazy.svg" loading="lazy" style="position:absolute;left:400px;top:0">`,
        ),
        { headers: { "content-type": "text/html" } },
      ),
    "/slow.svg": async (_req, hold) => (await hold(400), svg("#ff0000")),
    "/lazy.svg": async (_req, hold) => (await hold(400), svg("#00ff00")),
  });
  const capturer = loopbackCapturer();
  try {
    const png = decodePng((await capturer.capture(job(`${pages.origin}/images`))).image);
    assert.deepEqual(png.rgb(100, 100), [255, 0, 0], "slow image painted");
    assert.deepEqual(png.rgb(500, 100), [0, 255, 0], "lazy in-viewport image painted");
    assert.deepEqual(png.rgb(1000, 100), [255, 255, 255], "background elsewhere");
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("every capture runs in a fresh context: no cookie survives to the next request", async () => {
  const pages = servePages();
  const capturer = loopbackCapturer();
  try {
    await capturer.capture(job(`${pages.origin}/cookie`));
    await capturer.capture(job(`${pages.origin}/cookie`));
    await capturer.capture(job(`${pages.origin}/cookie`, { colorScheme: "dark" }));
    assert.deepEqual(pages.cookies, [null, null, null]);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("concurrent captures of different pages each get their own page", async () => {
  const pages = servePages({
    "/red": () => new Response(`<body style="margin:0;background:#ff0000">`, htmlType()),
    "/blue": () => new Response(`<body style="margin:0;background:#0000ff">`, htmlType()),
  });
  const capturer = loopbackCapturer();
  try {
    const urls = ["/red", "/blue", "/red", "/blue"].map((p) => `${pages.origin}${p}`);
    const results = await Promise.all(urls.map((url) => capturer.capture(job(url))));
    const colours = results.map((r) => decodePng(r.image).rgb(10, 10).join(","));
    assert.deepEqual(colours, ["255,0,0", "0,0,255", "255,0,0", "0,0,255"]);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

function htmlType() {
  return { headers: { "content-type": "text/html" } };
}
