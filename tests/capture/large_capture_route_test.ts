/**
 * Through the HTTP app: a capture past the cache's 8 MiB bound is kept in the app's object storage
 * (the store spill when no bucket is configured) and the next request is a cache hit with the same
 * bytes, without a second render; a purge through DELETE /api/cache drops the reference.
 */
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { concatBytes } from "../../lib/bytes.ts";
import { pngChunk } from "../../lib/codecs/png_encoder.ts";
import { DEFAULT_MAX_CACHED_PNG_BYTES } from "../../lib/capture/service/screenshots.ts";
import { createCaptureApp, pngOf } from "../../testing/capture_app.ts";
import { pngSize } from "../../testing/png.ts";
import { solidCapturer } from "../../testing/solid_capturer.ts";
import { noise } from "../../testing/store_backends.ts";
import { eventually } from "../../testing/wait.ts";

const ADMIN_TOKEN = "a-cache-admin-token-of-32-characters-or-more";

/** A real RGB PNG of noise, stored uncompressed: width x height x 3 bytes and a little more. */
function noisyPng(width: number, height: number, seed: number): Uint8Array {
  const stride = 1 + width * 3;
  const raw = noise(stride * height, seed);
  // Filter byte 0 (none) at the start of every row.
  for (let y = 0; y < height; y++) raw[y * stride] = 0;
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  return concatBytes([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(raw, { level: 0 }))),
    pngChunk("IEND", new Uint8Array()),
  ]);
}

/** A solidCapturer whose captures are 1920x1600 PNGs of noise (9.2 MB), new at every render. */
function largeCapturer() {
  const capturer = solidCapturer();
  const capture = capturer.capture.bind(capturer);
  capturer.capture = async (job, signal) => ({
    ...await capture(job, signal),
    image: noisyPng(1920, 1600, capturer.jobs.length),
  });
  return capturer;
}

Deno.test("a capture past the cache's bound is a hit with the same bytes through the app", async () => {
  const capture = largeCapturer();
  const t = await createCaptureApp({ env: { CACHE_ADMIN_TOKEN: ADMIN_TOKEN }, deps: { capture } });
  try {
    const settled = async () => {
      await t.deps.screenshots.writesSettled();
      await eventually(() => t.deps.screenshots.stats().flights === 0, "the flight ended");
    };
    const first = await t.shoot({ url: "https://example.com/long" });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-cache"), "miss");
    const rendered = await first.json();
    assert.ok(pngOf(rendered).byteLength > DEFAULT_MAX_CACHED_PNG_BYTES);
    await settled();
    assert.equal(t.deps.objectStorage.kind, "store");
    assert.ok(!t.log.lines.some((l) => l.msg === "capture too large to cache; served only"));

    const second = await t.shoot({ url: "https://example.com/long" });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("x-cache"), "hit");
    const hit = await second.json();
    assert.equal(hit.cached, true);
    assert.deepEqual(pngSize(pngOf(hit)), { width: 1920, height: 1600 });
    assert.equal(hit.screenshot, rendered.screenshot, "the same bytes");
    assert.equal(capture.jobs.length, 1, "no second render");

    const purge = await t.app.request("/api/cache?url=https://example.com/long", {
      method: "DELETE",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(purge.status, 200);
    assert.deepEqual(await purge.json(), { purged: 1 });
    const third = await t.shoot({ url: "https://example.com/long" });
    assert.equal(third.status, 200);
    assert.equal(third.headers.get("x-cache"), "miss");
    await third.body?.cancel();
    assert.equal(capture.jobs.length, 2);
    await settled();
  } finally {
    await t.close();
  }
});
