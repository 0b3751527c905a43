import assert from "node:assert/strict";
import { hitRateLimit } from "../../lib/http/rate_limit.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import type { Store } from "../../lib/store/store.ts";
import { manualClock } from "../../testing/app.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

const BEHIND_PROXY = { TRUST_PROXY_HOPS: "1" };
const from = (ip: string) => ({ headers: { "X-Forwarded-For": ip } });
const PAGE = { url: "https://example.com/" };

/** Status of one capture from `ip`, with the body drained. */
async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

Deno.test("of 40 simultaneous captures from one IP exactly 20 pass", async () => {
  const t = await createCaptureApp({ env: { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "20" } });
  try {
    const responses = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => t.shoot({ url: `https://example.com/${i % 3}` }, from("198.51.100.7")),
      ),
    );
    const passed = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    assert.equal(passed.length, 20);
    assert.equal(limited.length, 20);
    const remaining = passed.map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    assert.deepEqual(remaining.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
    for (const res of limited) {
      const body = await assertEnvelope(t.app, res, 429, "rate_limited");
      assert.equal(String(body.retryAfter), res.headers.get("retry-after"));
    }
    await Promise.all(passed.map((r) => r.body?.cancel()));
    // Another client is not affected.
    assert.equal(await statusOf(await t.shoot(PAGE, from("198.51.100.8"))), 200);
  } finally {
    await t.close();
  }
});

Deno.test("the 429 carries Retry-After, X-RateLimit-*, IETF fields and a hint", async () => {
  const clock = manualClock();
  const t = await createCaptureApp({
    env: { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "20" },
    deps: { clock },
  });
  try {
    const first = await t.shoot(PAGE, from("203.0.113.5"));
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-ratelimit-limit"), "20");
    assert.equal(first.headers.get("x-ratelimit-remaining"), "19");
    assert.equal(first.headers.get("x-ratelimit-reset"), String(clock.now() + 60_000));
    assert.equal(first.headers.get("ratelimit-policy"), '"per-ip";q=20;w=60');
    assert.equal(first.headers.get("ratelimit"), '"per-ip";r=19;t=60');
    assert.equal(first.headers.get("retry-after"), null);
    await first.body?.cancel();
    const start = clock.now();
    for (let i = 1; i < 20; i++) {
      clock.advance(1_000);
      assert.equal(await statusOf(await t.shoot(PAGE, from("203.0.113.5"))), 200);
    }
    clock.advance(500); // 19.5 s after the first hit, which leaves the window at 60 s
    const res = await t.shoot(PAGE, from("203.0.113.5"));
    const body = await assertEnvelope(t.app, res, 429, "rate_limited");
    assert.equal(res.headers.get("retry-after"), "41");
    assert.equal(body.retryAfter, 41);
    assert.equal(res.headers.get("x-ratelimit-limit"), "20");
    assert.equal(res.headers.get("x-ratelimit-remaining"), "0");
    assert.equal(res.headers.get("x-ratelimit-reset"), String(start + 60_000));
    assert.equal(res.headers.get("ratelimit-policy"), '"per-ip";q=20;w=60');
    assert.equal(res.headers.get("ratelimit"), '"per-ip";r=0;t=41');
    assert.match(String(body.hint), /Wait 41 seconds/);
    assert.match(String(body.hint), /20 requests per minute per IP/);
  } finally {
    await t.close();
  }
});

Deno.test("the window slides on the injected clock", async () => {
  const clock = manualClock();
  const env = { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "2" };
  const t = await createCaptureApp({ env, deps: { clock } });
  try {
    const shoot = async () => await statusOf(await t.shoot(PAGE, from("192.0.2.1")));
    assert.equal(await shoot(), 200);
    clock.advance(30_000);
    assert.equal(await shoot(), 200);
    assert.equal(await shoot(), 429);
    clock.advance(29_999);
    assert.equal(await shoot(), 429);
    clock.advance(1); // the first hit has left the window
    assert.equal(await shoot(), 200);
    assert.equal(await shoot(), 429);
  } finally {
    await t.close();
  }
});

Deno.test("IPv6 clients share a bucket per /64; IPv4-mapped is the IPv4 client", async () => {
  const t = await createCaptureApp({ env: { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "2" } });
  try {
    const shoot = async (ip: string) => await statusOf(await t.shoot(PAGE, from(ip)));
    assert.equal(await shoot("2001:db8:1:2::1"), 200);
    assert.equal(await shoot("2001:db8:1:2:ffff:eeee:dddd:cccc"), 200);
    assert.equal(await shoot("[2001:db8:1:2::99]:4321"), 429, "same /64, another address");
    assert.equal(await shoot("2001:db8:1:3::1"), 200, "next /64 is another client");
    assert.equal(await shoot("::ffff:192.0.2.44"), 200);
    assert.equal(await shoot("192.0.2.44"), 200);
    assert.equal(await shoot("::FFFF:192.0.2.44"), 429, "mapped and plain IPv4 are one client");
  } finally {
    await t.close();
  }
});

Deno.test("refused requests do not count; cache hits do", async () => {
  const t = await createCaptureApp({ env: { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "2" } });
  try {
    for (
      const body of [{}, { url: "file:///etc/passwd" }, {
        url: "https://a.example",
        deviceType: "tv",
      }]
    ) {
      assert.equal(await statusOf(await t.shoot(body, from("192.0.2.9"))), 400);
    }
    const miss = await t.shoot(PAGE, from("192.0.2.9"));
    assert.equal(miss.headers.get("x-cache"), "miss");
    assert.equal(await statusOf(miss), 200);
    const hit = await t.shoot(PAGE, from("192.0.2.9"));
    assert.equal(hit.headers.get("x-cache"), "hit");
    assert.equal(await statusOf(hit), 200);
    await assertEnvelope(t.app, await t.shoot(PAGE, from("192.0.2.9")), 429, "rate_limited");
  } finally {
    await t.close();
  }
});

Deno.test("when the store throws, the limit holds per instance from memory", async () => {
  const kv = await Deno.openKv(":memory:");
  const healthy = createKvStore(kv, { now: () => Date.now() });
  const store: Store = {
    ...healthy,
    hitWindow: () => Promise.reject(new Error("store unreachable")),
  };
  const t = await createCaptureApp({
    env: { ...BEHIND_PROXY, RATE_LIMIT_PER_MINUTE: "2" },
    deps: { store },
  });
  try {
    for (let i = 0; i < 2; i++) {
      const res = await t.shoot(PAGE, from("192.0.2.77"));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-ratelimit-limit"), "2", "the memory window's verdict");
      assert.equal(res.headers.get("x-ratelimit-remaining"), String(1 - i));
      await res.body?.cancel();
    }
    // Not "allow everything": the third request in the minute is refused.
    await assertEnvelope(t.app, await t.shoot(PAGE, from("192.0.2.77")), 429, "rate_limited");
    // Another client has its own window.
    const other = await t.shoot(PAGE, from("192.0.2.78"));
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const warnings = t.log.lines.filter((l) =>
      l.msg === "rate limiter store failed; counting in memory"
    );
    assert.equal(warnings.length, 4);
    assert.equal(warnings[0].level, "warn");
    const access = t.log.lines.findLast((l) => l.msg === "request");
    assert.equal(access?.rateLimit, "in-memory");
  } finally {
    await t.close();
    await healthy.close();
  }
});

Deno.test("a store slower than the limiter's timeout is replaced by the memory window", async () => {
  const log = createMemoryLogger();
  const kv = await Deno.openKv(":memory:");
  const store: Store = {
    ...createKvStore(kv, { now: () => Date.now() }),
    hitWindow: () => new Promise(() => {}), // never answers
  };
  try {
    const check = { store, log, bucket: "192.0.2.1", limit: 1, now: 1_000, timeoutMs: 10 };
    const first = await hitRateLimit(check);
    assert.deepEqual(first, {
      source: "memory",
      verdict: {
        allowed: true,
        limit: 1,
        remaining: 0,
        resetAt: 61_000,
        hit: { at: 1_000, id: "" },
      },
    });
    assert.equal((await hitRateLimit({ ...check, now: 2_000 })).verdict.allowed, false);
    // The window slides: a minute after the first hit there is room again.
    assert.equal((await hitRateLimit({ ...check, now: 61_001 })).verdict.allowed, true);
    assert.equal(log.lines[0].msg, "rate limiter store failed; counting in memory");
    assert.match(JSON.stringify(log.lines[0].error), /did not answer within 10 ms/);
  } finally {
    kv.close();
  }
});
