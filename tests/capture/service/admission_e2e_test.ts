/**
 * Admission by time with real Chromium at the default settings: 20 distinct captures sent at
 * once by one client (the per-IP limit) all render, because the capture queue admits what it
 * can finish within CAPTURE_TIMEOUT_MS rather than a fixed count; the 21st is the limit's 429.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../../testing/app.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";

Deno.test("20 distinct captures at once from one client IP all succeed at the defaults", async () => {
  const pages = servePages();
  // Defaults for everything that decides admission (MAX_CONCURRENT_CAPTURES, CAPTURE_TIMEOUT_MS,
  // RATE_LIMIT_PER_MINUTE); only loopback pages and the forwarded client IP need opting in.
  const harness = await createTestApp({
    env: { ALLOW_PRIVATE_NETWORK: "true", TRUST_PROXY_HOPS: "1" },
  });
  const shoot = (path: string) =>
    harness.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.20" },
      body: JSON.stringify({ url: `${pages.origin}${path}` }),
    });
  try {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => shoot(`/?tab=${i}`)),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    assert.deepEqual(
      responses.map((r) => r.status),
      Array(20).fill(200),
      JSON.stringify(bodies.find((b) => !b.screenshot)),
    );
    assert.ok(bodies.every((b) => b.cached === false && b.screenshot.length > 100));
    const extra = await shoot("/?tab=20");
    assert.equal(extra.status, 429);
    await extra.body?.cancel();
  } finally {
    await harness.close();
    await pages.close();
  }
});
