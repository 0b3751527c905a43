/**
 * maxAge, age, staleWhileRevalidate and the response that does not wait for the cache write,
 * through the route with a test capturer and the injected clock (no sleeps).
 */
import assert from "node:assert/strict";
import { createKvStore } from "../../../lib/store/deno_kv.ts";
import { METRICS } from "../../../lib/telemetry/metrics.ts";
import type { Store } from "../../../lib/store/store.ts";
import { manualClock } from "../../../testing/app.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";
import { sampleValue } from "../../../testing/prometheus.ts";
import { eventually } from "../../../testing/wait.ts";

const URL_A = "https://example.com/a";

/** The process's cache lookups so far, by result (GET /metrics' counter). */
async function cacheLookups(): Promise<{ hit: number; miss: number }> {
  const text = await METRICS.registry.metrics();
  const count = (result: string) =>
    sampleValue(text, "shotline_capture_cache_lookups_total", { result });
  return { hit: count("hit"), miss: count("miss") };
}

Deno.test("maxAge: a young entry is served with its age, an old one is rendered anew", async () => {
  const clock = manualClock();
  const t = await createCaptureApp({ deps: { clock } });
  const take = async (body: Record<string, unknown> = {}) => {
    const res = await t.shoot({ url: URL_A, ...body });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    return await res.json();
  };
  try {
    assert.deepEqual([(await take()).cached, (await take()).cached], [false, true]);
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    clock.advance(100_500);
    const young = await take({ maxAge: 200 });
    assert.deepEqual([young.cached, young.age], [true, 100]);
    const old = await take({ maxAge: 50 });
    assert.deepEqual([old.cached, old.age], [false, 0]);
    assert.equal(t.capture.jobs.length, 2);
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    const replaced = await take();
    assert.deepEqual([replaced.cached, replaced.age], [true, 0], "the new render replaced it");
    const zero = await take({ maxAge: 0 });
    assert.equal(zero.cached, false, "maxAge 0 is forceRefresh");
    assert.equal(t.capture.jobs.length, 3);
    assert.deepEqual(t.capture.jobs[2], {
      url: URL_A,
      deviceType: "desktop",
      colorScheme: "light",
    });
  } finally {
    await t.close();
  }
});

Deno.test("maxAge beyond the cache lifetime, or negative, is a 400", async () => {
  const t = await createCaptureApp({ env: { CACHE_TTL_SECONDS: "600" } });
  try {
    const long = await assertEnvelope(
      t.app,
      await t.shoot({ url: URL_A, maxAge: 601 }),
      400,
      "invalid_request",
    );
    assert.match(String(long.hint), /600/);
    await assertEnvelope(t.app, await t.shoot({ url: URL_A, maxAge: -1 }), 400, "invalid_request");
    await assertEnvelope(t.app, await t.shoot({ url: URL_A, maxAge: 1.5 }), 400, "invalid_request");
    const ok = await t.shoot({ url: URL_A, maxAge: 600 });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("staleWhileRevalidate: a stale entry answers at once and is refreshed once", async () => {
  const clock = manualClock();
  const t = await createCaptureApp({ deps: { clock } });
  try {
    await (await t.shoot({ url: URL_A })).body?.cancel();
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    clock.advance(120_000);
    t.capture.hold();
    const body = { url: URL_A, maxAge: 60, staleWhileRevalidate: true };
    for (let i = 0; i < 3; i++) {
      const res = await t.shoot(body);
      assert.equal(res.status, 200);
      const json = await res.json();
      assert.deepEqual([json.cached, json.stale, json.age], [true, true, 120]);
    }
    assert.equal(t.capture.jobs.length, 2, "one background refresh for three stale answers");
    t.capture.release();
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    const fresh = await (await t.shoot(body)).json();
    assert.deepEqual([fresh.cached, fresh.stale, fresh.age], [true, undefined, 0]);
    assert.equal(t.capture.jobs.length, 2);
  } finally {
    t.capture.release();
    await t.close();
  }
});

/** A KV store whose blob writes wait until `release()`; counts writes started and landed. */
async function heldWriteStore() {
  const kv = await Deno.openKv(":memory:");
  const inner = createKvStore(kv, { now: () => Date.now() });
  const gate = Promise.withResolvers<void>();
  const counts = { started: 0, landed: 0 };
  const store: Store = {
    ...inner,
    async setBlob(...args) {
      counts.started++;
      await gate.promise;
      await inner.setBlob(...args);
      counts.landed++;
    },
  };
  return {
    store,
    counts,
    release: () => gate.resolve(),
    close: () => kv.close(),
  };
}

Deno.test("a fresh capture answers before its slow cache write; a request meanwhile joins it", async () => {
  const held = await heldWriteStore();
  const t = await createCaptureApp({ deps: { store: held.store } });
  try {
    const first = await t.shoot({ url: URL_A });
    assert.equal(first.status, 200, "answered while the write is held");
    const image = (await first.json()).screenshot;
    await eventually(() => held.counts.started === 1, "the write started");
    const lookups = await cacheLookups();
    const second = await t.shoot({ url: URL_A });
    assert.equal(second.status, 200);
    const json = await second.json();
    assert.equal(json.cached, true, "the entry being written, though the store lacks it yet");
    assert.deepEqual(await cacheLookups(), { hit: lookups.hit + 1, miss: lookups.miss }, "a hit");
    assert.equal(json.screenshot, image);
    assert.equal(t.capture.jobs.length, 1, "the second request got the same render");
    held.release();
    await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
    const third = await t.shoot({ url: URL_A });
    assert.equal((await third.json()).cached, true, "the write landed");
    assert.equal(t.capture.jobs.length, 1);
  } finally {
    held.release();
    await t.close();
    held.close();
  }
});

Deno.test("writesSettled resolves once an answered capture's cache write has landed", async () => {
  const held = await heldWriteStore();
  const t = await createCaptureApp({ deps: { store: held.store } });
  try {
    assert.equal((await t.shoot({ url: URL_A })).status, 200, "answered while the write is held");
    await eventually(() => held.counts.started === 1, "the write started");
    let settled = false;
    const settling = t.deps.screenshots.writesSettled().then(() => settled = true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, false, "still waiting for the held write");
    held.release();
    await settling;
    assert.equal(held.counts.landed, 1, "the write landed before writesSettled resolved");
  } finally {
    held.release();
    await t.close();
    held.close();
  }
});

Deno.test("a forceRefresh during the previous refresh's cache write renders anew", async () => {
  const held = await heldWriteStore();
  const t = await createCaptureApp({ deps: { store: held.store } });
  try {
    for (let i = 0; i < 2; i++) {
      const res = await t.shoot({ url: URL_A, forceRefresh: true });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).cached, false);
    }
    assert.equal(t.capture.jobs.length, 2, "the finished refresh was not joined");
  } finally {
    held.release();
    await t.close();
    held.close();
  }
});
