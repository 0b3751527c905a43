import assert from "node:assert/strict";
import type { Upstreams } from "../../lib/upstreams.ts";
import {
  appWithUpstreams,
  startUpstream,
  TINY_PNG,
  untilAborted,
} from "../../testing/loopback_upstream.ts";
import { startMediaUpstream } from "../../testing/media_upstream.ts";

/** The app on a real port-0 socket, its media hosts played by `origin`. */
async function serve(origin: string, budgets: Partial<Upstreams> = {}) {
  const t = await appWithUpstreams({ media: origin, ...budgets });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    ...t,
    url: (media: string) => `${base}/api/image-proxy?url=${encodeURIComponent(media)}`,
    async stop() {
      await server.shutdown();
      await t.close();
    },
  };
}

Deno.test("a client that disconnects mid-stream makes the proxy abort the upstream body", async () => {
  const upstream = startMediaUpstream();
  const s = await serve(upstream.origin);
  try {
    const client = new AbortController();
    const res = await fetch(s.url("https://video.twimg.com/endless.mp4"), {
      signal: client.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "video/mp4");
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 256 * 1024) received += (await reader.read()).value?.byteLength ?? 0;
    client.abort();
    await reader.closed.catch(() => {});
    // Resolves only when the upstream saw its body cancelled: the proxy let go of it.
    await upstream.cancelled("/endless.mp4");
  } finally {
    await s.stop();
    await upstream.close();
  }
});

Deno.test("a client that leaves before the headers arrive aborts the upstream request", async () => {
  const arrived = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  const upstream = startUpstream(async (req) => {
    arrived.resolve();
    await untilAborted(req);
    aborted.resolve();
    return new Response(null, { status: 504 });
  });
  const s = await serve(upstream.origin);
  try {
    const client = new AbortController();
    const pending = fetch(s.url("https://pbs.twimg.com/slow.jpg"), { signal: client.signal });
    await arrived.promise;
    client.abort();
    await assert.rejects(pending);
    await aborted.promise;
  } finally {
    await s.stop();
    await upstream.close();
  }
});

Deno.test("over a socket HEAD keeps Content-Length and sends no body", async () => {
  const upstream = startMediaUpstream();
  const s = await serve(upstream.origin);
  try {
    const res = await fetch(s.url("https://pbs.twimg.com/media/ok.png"), { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("content-length"), String(TINY_PNG.byteLength));
    assert.equal(await res.text(), "");
    assert.equal(upstream.seen[0].method, "HEAD");
  } finally {
    await s.stop();
    await upstream.close();
  }
});

Deno.test("over a socket a body past the cap ends the client's download with an error", async () => {
  const upstream = startMediaUpstream();
  const s = await serve(upstream.origin, { mediaMaxBytes: 8 * 1024 });
  try {
    const res = await fetch(s.url("https://pbs.twimg.com/streamed-big.jpg"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/jpeg");
    await assert.rejects(res.arrayBuffer(), "a truncated body is an error, not a short file");
    await upstream.cancelled("/streamed-big.jpg");
  } finally {
    await s.stop();
    await upstream.close();
  }
});
