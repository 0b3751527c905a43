/**
 * Fair limits: a capture the render queue refuses (503, before any work) gives its client's hit
 * back, on both store backends; a capture that got a render slot counts whatever its outcome.
 */
import assert from "node:assert/strict";
import { type BackendGone, CaptureFailure } from "../../lib/capture/types.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import type { Store } from "../../lib/store/store.ts";
import { manualClock } from "../../testing/app.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { openRedisStack } from "../../testing/store_backends.ts";
import { eventually } from "../../testing/wait.ts";

const CLIENT = "198.51.100.20";
const OTHER = "198.51.100.21";
const from = (ip: string) => ({ headers: { "X-Forwarded-For": ip } });
const gone = (reason: BackendGone) =>
  new CaptureFailure({ kind: "backend_unavailable", reason, retryAfterS: 1 });

// One render slot, and the shortest budget: at the prior estimate of 1 s per render, nothing
// may wait behind a running render, so the queue refuses at once.
const FULL_QUEUE_ENV = {
  TRUST_PROXY_HOPS: "1",
  RATE_LIMIT_PER_MINUTE: "20",
  MAX_CONCURRENT_CAPTURES: "1",
  CAPTURE_TIMEOUT_MS: "1000",
};

/** A capture app whose only render slot is held by another client until `free()`. */
async function fullQueueApp(store?: Store) {
  const clock = manualClock();
  const t = await createCaptureApp({
    env: FULL_QUEUE_ENV,
    deps: { clock, ...(store ? { store } : {}) },
  });
  t.capture.hold();
  const blocker = t.shoot({ url: "https://example.com/slow" }, from(OTHER));
  await eventually(() => t.capture.jobs.length === 1, "the blocker holds the render slot", {
    intervalMs: 0,
  });
  return {
    ...t,
    /** Lets the blocker finish and drains its answer. */
    async free() {
      t.capture.release();
      const res = await blocker;
      assert.equal(res.status, 200);
      await res.body?.cancel();
    },
  };
}

async function refusedCapturesLeaveTheAllowance(store?: Store) {
  const t = await fullQueueApp(store);
  try {
    for (let i = 0; i < 20; i++) {
      const res = await t.shoot({ url: `https://example.com/${i}` }, from(CLIENT));
      const body = await assertEnvelope(t.app, res, 503, "upstream_unavailable");
      assert.match(String(body.hint), /queue is full/);
    }
    // Refused at once: nothing was rendered for the client; each refund is in the access log.
    assert.equal(t.capture.jobs.length, 1);
    const refunded = t.log.lines.filter((line) => line.rateLimitRefunded === true);
    assert.equal(refunded.length, 20);
    await t.free();
    const next = await t.shoot({ url: "https://example.com/next" }, from(CLIENT));
    assert.equal(next.status, 200);
    assert.match(next.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(typeof (await next.json()).screenshot, "string");
    assert.equal(next.headers.get("x-ratelimit-remaining"), "19", "the full allowance less one");
    assert.equal(next.headers.get("ratelimit"), '"per-ip";r=19;t=60');
    // A capture that was rendered counts as always.
    const second = await t.shoot({ url: "https://example.com/second" }, from(CLIENT));
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("x-ratelimit-remaining"), "18");
    await second.body?.cancel();
    assert.equal(t.log.lines.filter((line) => line.level === "warn").length, 0, "no store trouble");
  } finally {
    await t.close();
  }
}

Deno.test("captures refused by a full queue leave the allowance intact (Deno KV)", async () => {
  await refusedCapturesLeaveTheAllowance();
});

Deno.test("captures refused by a full queue leave the allowance intact (Upstash)", async () => {
  await using stack = await openRedisStack(manualClock());
  await refusedCapturesLeaveTheAllowance(stack.store);
});

Deno.test("the 21st refused capture is still a 503, never a 429", async () => {
  const t = await fullQueueApp();
  try {
    for (let i = 0; i < 25; i++) {
      const res = await t.shoot({ url: `https://example.com/${i}` }, from(CLIENT));
      await assertEnvelope(t.app, res, 503, "upstream_unavailable");
    }
    await t.free();
  } finally {
    await t.close();
  }
});

Deno.test("a capture whose page was opened counts, even when it fails", async () => {
  const t = await createCaptureApp({ env: { ...FULL_QUEUE_ENV, RATE_LIMIT_PER_MINUTE: "2" } });
  try {
    // A browser lost during the capture answers 503 too, but the page had been opened: a page
    // that brings the browser down must not get its captures for free.
    t.capture.failWith = gone("browser_restarted");
    const down = await t.shoot({ url: "https://example.com/a" }, from(CLIENT));
    await assertEnvelope(t.app, down, 503, "upstream_unavailable");
    t.capture.failWith = new Error("the page crashed");
    const failed = await t.shoot({ url: "https://example.com/b" }, from(CLIENT));
    await assertEnvelope(t.app, failed, 500, "upstream_failed");
    t.capture.failWith = null;
    const limited = await t.shoot({ url: "https://example.com/c" }, from(CLIENT));
    const body = await assertEnvelope(t.app, limited, 429, "rate_limited");
    assert.match(String(body.hint), /503 before any work, is not counted/);
    assert.equal(t.log.lines.filter((line) => line.rateLimitRefunded).length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("a capture no backend could take (no browser) gives its hit back", async () => {
  const t = await createCaptureApp({ env: { ...FULL_QUEUE_ENV, RATE_LIMIT_PER_MINUTE: "2" } });
  try {
    t.capture.failWith = gone("no_browser");
    for (let i = 0; i < 5; i++) {
      const res = await t.shoot({ url: `https://example.com/${i}` }, from(CLIENT));
      await assertEnvelope(t.app, res, 503, "upstream_unavailable");
    }
    t.capture.failWith = null;
    const res = await t.shoot({ url: "https://example.com/ok" }, from(CLIENT));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("X-RateLimit-Remaining"), "1");
    await res.body?.cancel();
    assert.equal(t.log.lines.filter((line) => line.rateLimitRefunded).length, 5);
  } finally {
    await t.close();
  }
});

Deno.test("while the store fails, a refused capture is given back in memory", async () => {
  const kv = await Deno.openKv(":memory:");
  const healthy = createKvStore(kv, { now: () => Date.now() });
  const down = () => Promise.reject(new Error("store unreachable"));
  const t = await fullQueueApp({ ...healthy, hitWindow: down, refundWindow: down });
  try {
    for (let i = 0; i < 20; i++) {
      const res = await t.shoot({ url: `https://example.com/${i}` }, from(CLIENT));
      await assertEnvelope(t.app, res, 503, "upstream_unavailable");
    }
    await t.free();
    const next = await t.shoot({ url: "https://example.com/next" }, from(CLIENT));
    assert.equal(next.status, 200);
    assert.equal(next.headers.get("x-ratelimit-remaining"), "19");
    await next.body?.cancel();
  } finally {
    await t.close();
    kv.close();
  }
});
