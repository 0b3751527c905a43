/**
 * Two instances of the service, each with its own app, Upstash store client and remote
 * capturer, served on two real loopback ports, sharing one Redis and one remote browser:
 * what one instance caches, counts or refreshes, the other sees.
 */
import assert from "node:assert/strict";
import { createRemoteCapturer } from "../../lib/capture/remote/capturer.ts";
import { parseConfig } from "../../lib/config.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";
import { createUpstashStore } from "../../lib/store/upstash_redis.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { eventually } from "../../testing/wait.ts";
import { demonstrate, type SharedServices, startSharedServices } from "../../testing/cluster.ts";

/** One instance: its own store client, capturer and app, on its own port. */
async function startInstance(shared: SharedServices) {
  const config = parseConfig(shared.env);
  const log = createMemoryLogger();
  const store = createUpstashStore({
    url: config.UPSTASH_REDIS_REST_URL!,
    token: config.UPSTASH_REDIS_REST_TOKEN!,
    clock: SYSTEM_CLOCK,
    log,
  });
  const capture = createRemoteCapturer({
    endpoints: config.BROWSER_WS_ENDPOINT!,
    timeoutMs: config.CAPTURE_TIMEOUT_MS,
    allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
    log,
  });
  const t = await createTestApp({ env: shared.env, deps: { store, capture, log } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, t.app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    app: t.app,
    /** Renders whose answer is out but whose cache write has not ended. */
    flights: () => t.deps.screenshots.stats().flights,
    log,
    async close() {
      await server.shutdown();
      await t.close();
      await capture.close();
      await store.close();
    },
  };
}

Deno.test("two instances share one Redis and one remote browser: cache, limit and refresh", async (t) => {
  await using shared = await startSharedServices();
  const a = await startInstance(shared);
  const b = await startInstance(shared);
  try {
    const health = await (await fetch(`${b.url}/healthz`)).json();
    assert.equal(health.store, "upstash-redis");
    assert.deepEqual(health.capture.map((s: { name: string }) => s.name), ["chromium-remote"]);

    const landed = () =>
      eventually(() => a.flights() === 0 && b.flights() === 0, "the cache writes ended");
    const demo = await demonstrate(a.url, b.url, shared.pagesOrigin, landed);

    await t.step("a capture made through A is a cache hit through B", () => {
      const { throughA, throughB } = demo.sharedCache;
      assert.deepEqual(
        [throughA.status, throughA.cached, throughA.strategy],
        [200, false, "chromium-remote"],
      );
      assert.deepEqual(
        [throughB.status, throughB.cached, throughB.strategy],
        [200, true, "chromium-remote"],
      );
      assert.equal(throughB.digest, throughA.digest, "the same PNG bytes");
    });

    await t.step("30 requests from one client IP over both instances admit exactly 20", () => {
      const { shots, admitted, limited } = demo.sharedLimit;
      assert.equal(admitted, 20);
      assert.equal(limited, 10);
      const per = (instance: string, status: number) =>
        shots.filter((s) => s.instance === instance && s.status === status).length;
      // Alternating requests: each instance admitted 10 and refused 5, so neither had its own.
      assert.deepEqual([per("A", 200), per("B", 200), per("A", 429), per("B", 429)], [
        10,
        10,
        5,
        5,
      ]);
      assert.ok(shots.slice(0, 20).every((s) => s.status === 200 && s.cached === true));
    });

    await t.step("a forceRefresh on B replaces what A serves next", () => {
      const { before, refreshed, after } = demo.sharedRefresh;
      assert.deepEqual([before.status, before.cached], [200, true]);
      assert.deepEqual([refreshed.status, refreshed.cached], [200, false]);
      assert.notEqual(refreshed.digest, before.digest, "a new render");
      assert.deepEqual([after.status, after.cached], [200, true]);
      assert.equal(after.digest, refreshed.digest, "A now serves B's refresh");
    });

    await t.step("a 429 through either instance is the rate-limit envelope", async () => {
      const response = await fetch(`${a.url}/api/screenshot`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.20" },
        body: JSON.stringify({ url: `${shared.pagesOrigin}/` }),
      });
      const retryAfter = response.headers.get("retry-after");
      const body = await assertEnvelope(a.app, response, 429, "rate_limited");
      assert.equal(String(body.retryAfter), retryAfter);
    });
  } finally {
    await a.close();
    await b.close();
  }
});
