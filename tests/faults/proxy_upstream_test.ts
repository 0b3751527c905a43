/**
 * Faults of the media host behind GET /api/image-proxy, over a real socket (the proxy streams):
 * a host that hangs, resets before or during its answer, or dribbles one byte a second. Before
 * the headers the client gets a bounded envelope; after them, a body cut with an error (never a
 * silently short file). Each time the upstream socket is released and the next request works.
 */
import assert from "node:assert/strict";
import type { Upstreams } from "../../lib/upstreams.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { within } from "../../testing/fault_checks.ts";
import { startFaultyUpstream } from "../../testing/faulty_upstream.ts";
import { appWithUpstreams, TINY_PNG } from "../../testing/loopback_upstream.ts";

// Short budgets keep the test fast; production waits 10 s for headers and 20 s between chunks.
const BUDGETS: Partial<Upstreams> = {
  mediaHeaderTimeoutMs: 500,
  mediaIdleTimeoutMs: 300,
  // The guarded path: the only one that can cut a stalled body (docs/posts-and-media.md).
  mediaDirectStreams: 0,
};
// Far above the budgets: a request still pending by then counts as hung.
const HANG_GUARD_MS = 10_000;
const MEDIA = "https://pbs.twimg.com/media/fault.png";

/** The app on a real port-0 socket; its media hosts are played by one faulty upstream. */
async function serve(budgets: Partial<Upstreams> = BUDGETS) {
  const upstream = startFaultyUpstream({ contentType: "image/png", body: TINY_PNG });
  const t = await appWithUpstreams({ media: upstream.origin, ...budgets });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/api/image-proxy?url=${
    encodeURIComponent(MEDIA)
  }`;
  return {
    ...t,
    upstream,
    url,
    proxy: (init?: RequestInit) => within(fetch(url, init), HANG_GUARD_MS, "proxy request"),
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await t.close();
      await upstream.close();
    },
  };
}

type Served = Awaited<ReturnType<typeof serve>>;

/** The next request, against a healthy host, streams the whole file. */
async function assertHealthy(s: Served) {
  s.upstream.fault = "none";
  const res = await s.proxy();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), TINY_PNG);
  await s.upstream.allClosed();
}

Deno.test("a media host that hangs before its headers is a bounded 500 upstream_timeout", async () => {
  await using s = await serve();
  s.upstream.fault = "hang";
  const body = await assertEnvelope(s.app, await s.proxy(), 500, "upstream_timeout");
  assert.match(String(body.hint), /500 ms/);
  assert.equal(body.documentation, `${new URL(s.url).origin}/docs#error-upstream_timeout`);
  await s.upstream.allClosed();
  await assertHealthy(s);
});

Deno.test("a media host that resets before answering is 500 upstream_failed", async () => {
  await using s = await serve();
  s.upstream.fault = "reset";
  const body = await assertEnvelope(s.app, await s.proxy(), 500, "upstream_failed");
  assert.match(String(body.hint), /could not be reached/);
  const port = new URL(s.upstream.origin).port;
  assert.ok(!`${body.error} ${body.hint}`.includes(port), "the upstream address stays private");
  assert.ok(s.log.lines.some((l) => l.msg === "media fetch failed"), "logged with its cause");
  await assertHealthy(s);
});

Deno.test("a reset in the middle of the body ends the client's download with an error", async () => {
  await using s = await serve();
  s.upstream.fault = "reset_mid_body";
  const res = await s.proxy();
  assert.equal(res.status, 200, "the headers were already passed on");
  assert.equal(res.headers.get("content-length"), String(TINY_PNG.byteLength));
  await assert.rejects(
    within(res.arrayBuffer(), HANG_GUARD_MS, "body"),
    "a short file is an error",
  );
  await s.upstream.allClosed();
  await assertHealthy(s);
});

Deno.test("a host dribbling one byte a second is cut by the idle timeout", async () => {
  await using s = await serve();
  s.upstream.fault = "dribble";
  const res = await s.proxy();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  await assert.rejects(within(res.arrayBuffer(), HANG_GUARD_MS, "body"));
  await s.upstream.allClosed();
  const cut = s.log.lines.find((l) => l.msg === "media stream cut");
  assert.equal(cut?.reason, "idle");
  await assertHealthy(s);
});

Deno.test("a slow but steady body (pauses under the idle timeout) is passed on whole", async () => {
  await using s = await serve({ ...BUDGETS, mediaIdleTimeoutMs: 1_000 });
  s.upstream.fault = "dribble";
  s.upstream.dribbleIntervalMs = 25;
  const res = await s.proxy();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  // The idle timeout bounds pauses, not the whole transfer (here 25 ms x 70 bytes).
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), TINY_PNG);
  assert.ok(!s.log.lines.some((l) => l.msg === "media stream cut"));
  await s.upstream.allClosed();
});

Deno.test("many clients leaving mid-stream in a row leave no upstream connection open", async () => {
  await using s = await serve({
    ...BUDGETS,
    mediaHeaderTimeoutMs: 5_000,
    mediaIdleTimeoutMs: 5_000,
  });
  s.upstream.fault = "dribble";
  s.upstream.dribbleIntervalMs = 10;
  const ROUNDS = 20;
  for (let round = 0; round < ROUNDS; round++) {
    const client = new AbortController();
    const res = await s.proxy({ signal: client.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await within(reader.read(), HANG_GUARD_MS, "first body byte");
    assert.equal(first.done, false);
    client.abort();
    await reader.closed.catch(() => {});
  }
  await s.upstream.allClosed();
  assert.equal(s.upstream.connections, ROUNDS);
  await assertHealthy(s);
  assert.ok(!s.log.lines.some((l) => l.level === "error"), "no unexpected error was logged");
});

Deno.test("many clients leaving while the host hangs leave no upstream connection open", async () => {
  await using s = await serve({
    ...BUDGETS,
    mediaHeaderTimeoutMs: 5_000,
    mediaIdleTimeoutMs: 5_000,
  });
  s.upstream.fault = "hang";
  const ROUNDS = 20;
  for (let round = 0; round < ROUNDS; round++) {
    const client = new AbortController();
    const pending = fetch(s.url, { signal: client.signal });
    const asked = round + 1;
    await within(
      (async () => {
        while (s.upstream.requests < asked) await new Promise((r) => setTimeout(r, 5));
      })(),
      HANG_GUARD_MS,
      "the request reaching the media host",
    );
    client.abort();
    await assert.rejects(pending);
  }
  await s.upstream.allClosed();
  assert.equal(s.upstream.requests, ROUNDS);
  await assertHealthy(s);
});
