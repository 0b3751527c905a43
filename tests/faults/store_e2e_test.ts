/**
 * The shared store going away under a running service: Upstash Redis (the REST gateway fixture
 * in front of a real redis-server) is stopped mid-run, then stalls, then comes back. Captures
 * (real Chromium) and post lookups keep succeeding: the cache degrades to a miss, the rate
 * limiter fails open with a log line, nothing hangs, and caching resumes once Redis is back,
 * without restarting the service.
 */
import assert from "node:assert/strict";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";
import { pngOf } from "../../testing/capture_app.ts";
import { decodePng, servePages } from "../../testing/capture_fixtures.ts";
import { assertNoChromiumLeft, chromiumProfiles, within } from "../../testing/fault_checks.ts";
import { BROWSER_WAIT_MS, eventually } from "../../testing/wait.ts";
import { openRedisStack } from "../../testing/store_backends.ts";
import { appWithUpstreams, startUpstream } from "../../testing/loopback_upstream.ts";

// Far above every store budget (0.5 s per call here, 1 to 3 s in the capture cache and limiter)
// plus a capture that may launch the browser on a busy machine: a request still pending by then
// counts as hung.
const HANG_GUARD_MS = BROWSER_WAIT_MS;
const POST = { __typename: "Tweet", id_str: "1790000000000000900", text: "kept alive" };

async function setup() {
  const earlier = chromiumProfiles(Deno.pid);
  const stack = await openRedisStack(SYSTEM_CLOCK, { timeoutMs: 500, bulkTimeoutMs: 1_000 });
  const pages = servePages();
  const syndication = startUpstream(() => Response.json(POST));
  const t = await appWithUpstreams({ syndicationOrigin: syndication.origin }, {
    env: { ALLOW_PRIVATE_NETWORK: "true", RATE_LIMIT_PER_MINUTE: "1000" },
    deps: { store: stack.store },
  });
  /** POST /api/screenshot of a loopback page; the access-log line of the request too. */
  const shoot = async (path: string) => {
    const requestId = crypto.randomUUID();
    const res = await within(
      t.app.request("/api/screenshot", {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": requestId },
        body: JSON.stringify({ url: `${pages.origin}${path}` }),
      }),
      HANG_GUARD_MS,
      `capture of ${path}`,
    );
    const line = t.log.lines.find((l) => l.msg === "request" && l.requestId === requestId);
    return { res, line };
  };
  return {
    ...t,
    stack,
    shoot,
    async [Symbol.asyncDispose]() {
      await t.close();
      await stack[Symbol.asyncDispose]();
      await syndication.close();
      await pages.close();
      await assertNoChromiumLeft({ ownerPid: Deno.pid, earlier });
    },
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A successful capture, from the cache or freshly rendered as `expected` says. */
async function assertCaptured(s: Setup, path: string, expected: "hit" | "miss") {
  const { res, line } = await s.shoot(path);
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(res.headers.get("x-cache"), expected);
  const body = await res.json();
  assert.equal(body.cached, expected === "hit");
  assert.equal(decodePng(pngOf(body)).width, 1920);
  // The answer does not wait for the cache write (bounded at 3 s): let it end, so the next
  // step sees the store as this capture left it.
  await eventually(() => s.deps.screenshots.stats().flights === 0, "the cache write ended");
  return line;
}

async function assertPostFound(s: Setup) {
  const res = await within(s.app.request(`/api/post/${POST.id_str}`), HANG_GUARD_MS, "post");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await res.json(), { data: POST });
}

const warned = (s: Setup, msg: string) => s.log.lines.filter((l) => l.msg === msg).length;

Deno.test("redis stopped mid-run: captures and posts still succeed, caching resumes after restart", async () => {
  await using s = await setup();
  await assertCaptured(s, "/?before", "miss");
  const cachedLine = await assertCaptured(s, "/?before", "hit");
  assert.equal(cachedLine?.rateLimit, undefined, "the limiter counted normally");

  await s.stack.server.stop();
  // The cached copy is unreachable now: a miss, rendered again, and the limiter fails open.
  const line = await assertCaptured(s, "/?before", "miss");
  assert.equal(line?.rateLimit, "in-memory");
  assert.ok(
    warned(s, "rate limiter store failed; counting in memory") >= 1,
    "the fallback is logged",
  );
  assert.ok(warned(s, "capture cache read failed") >= 1);
  assert.ok(warned(s, "capture cache write failed") >= 1);
  // Nothing can be cached meanwhile, and every request still gets its image.
  await assertCaptured(s, "/?during", "miss");
  await assertCaptured(s, "/?during", "miss");
  await assertPostFound(s);
  assert.ok(warned(s, "post cache read failed") >= 1);

  await s.stack.server.restart();
  // The same store client, no service restart: the restarted (empty) Redis caches again.
  const back = await assertCaptured(s, "/?during", "miss");
  assert.equal(back?.rateLimit, undefined, "the limiter works again");
  await assertCaptured(s, "/?during", "hit");
  assert.ok(!s.log.lines.some((l) => l.level === "error"), "no request failed unexpectedly");
});

Deno.test("a store that stops answering (stalled gateway) slows captures down but never hangs them", async () => {
  await using s = await setup();
  await assertCaptured(s, "/?stall", "miss");

  s.stack.gateway.stall();
  const line = await assertCaptured(s, "/?stall", "miss");
  assert.equal(line?.rateLimit, "in-memory");
  await assertPostFound(s);

  s.stack.gateway.resume();
  // Redis kept its data through the stall: the entry cached before it is served again.
  await assertCaptured(s, "/?stall", "hit");
  await assertCaptured(s, "/?after-stall", "miss");
  await assertCaptured(s, "/?after-stall", "hit");
});
