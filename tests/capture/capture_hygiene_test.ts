/**
 * Fail-closed and privacy details around a capture: oversized PNGs are served but never
 * cached, logs name a target by origin and hash (never its path or query), and every refused
 * target gets the same answer, its reason going to the log only.
 */
import assert from "node:assert/strict";
import type { CachedCapture, CaptureCache } from "../../lib/capture/service/cache.ts";
import { DEFAULT_MAX_CACHED_PNG_BYTES } from "../../lib/capture/service/screenshots.ts";
import { urlHash } from "../../lib/hash.ts";
import type { Capturer } from "../../lib/capture/types.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { eventually } from "../../testing/wait.ts";
import { serviceWith } from "../../testing/screenshot_service.ts";

const GENERIC = "The URL's host is not publicly reachable.";

/** A capturer whose PNG is `size` bytes. */
function sizedCapturer(size: number): Capturer & { renders: number } {
  const capturer = {
    renders: 0,
    capture() {
      capturer.renders++;
      return Promise.resolve({
        image: new Uint8Array(size),
        format: "png" as const,
        strategy: "fake",
        targetStatus: 200,
      });
    },
    status: () => [],
    close: () => Promise.resolve(),
  };
  return capturer;
}

function recordingCache(): CaptureCache & { writes: number } {
  const entries = new Map<string, CachedCapture>();
  const cache = {
    writes: 0,
    get: (job: { url: string }) => Promise.resolve(entries.get(job.url) ?? null),
    set: (job: { url: string }, capture: CachedCapture) => {
      cache.writes++;
      entries.set(job.url, capture);
      return Promise.resolve();
    },
    purgeUrl: () => Promise.resolve(0),
    purgeAll: () => Promise.resolve(0),
  };
  return cache;
}

Deno.test("a PNG over the cache cap is served but not cached (default 8 MiB)", async () => {
  assert.equal(DEFAULT_MAX_CACHED_PNG_BYTES, 8 * 1024 * 1024);
  const url = "https://example.com/huge?session=abc123";
  const job = { url, deviceType: "desktop" as const, colorScheme: "light" as const };
  for (const [size, cached] of [[DEFAULT_MAX_CACHED_PNG_BYTES + 1, false], [1000, true]] as const) {
    const capturer = sizedCapturer(size);
    const cache = recordingCache();
    const { service, log } = serviceWith({
      capturer,
      cache,
      maxConcurrent: 1,
      hardTimeoutMs: 10_000,
    });
    const first = await service.take(job);
    assert.equal(first.image.byteLength, size, "served");
    await eventually(() => service.stats().flights === 0, "the cache write ended");
    assert.equal(cache.writes, cached ? 1 : 0);
    const second = await service.take(job);
    assert.equal(second.cached, cached);
    assert.equal(capturer.renders, cached ? 1 : 2);
    const warning = log.lines.find((l) => l.msg === "capture too large to cache; served only");
    assert.equal(warning !== undefined, !cached);
    if (warning) {
      assert.equal(warning.target, "https://example.com");
      assert.equal(warning.targetHash, urlHash(url));
      assert.doesNotMatch(JSON.stringify(log.lines), /abc123|\/huge/);
    }
  }
});

Deno.test("the access log has the target's origin and URL hash, never its path or query", async () => {
  const t = await createCaptureApp();
  try {
    const url = "https://example.com/reset-password?token=hunter2-secret";
    const res = await t.shoot({ url });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const line = t.log.lines.findLast((l) => l.msg === "request");
    assert.equal(line?.target, "https://example.com");
    assert.equal(line?.targetHash, urlHash(url));
    assert.doesNotMatch(JSON.stringify(t.log.lines), /hunter2|reset-password/);
  } finally {
    await t.close();
  }
});

Deno.test("a refused target gets one generic 400; the reason is in the log only", async () => {
  const t = await createCaptureApp();
  try {
    for (
      const url of [
        "http://127.0.0.1:8000/",
        "http://[::1]/",
        "http://169.254.169.254/",
        "http://app.localhost/",
      ]
    ) {
      const res = await t.shoot({ url });
      const body = await assertEnvelope(t.app, res, 400, "invalid_url");
      assert.equal(body.error, GENERIC, url);
      assert.doesNotMatch(JSON.stringify(body), /loopback|private|metadata|127\.0|::1|169\.254/);
      const line = t.log.lines.findLast((l) => l.msg === "request" && l.path === "/api/screenshot");
      assert.deepEqual(line?.refusal, {
        host: new URL(url).host.replace(/:\d+$/, ""),
        kind: "forbidden_literal",
      });
    }
  } finally {
    await t.close();
  }
});
