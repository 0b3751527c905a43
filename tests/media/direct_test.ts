/**
 * The zero-copy path of GET /api/image-proxy over a real socket: a body whose Content-Length is
 * within the cap is handed to Deno untouched; at most `mediaDirectStreams` such bodies are in
 * flight, and past that the guarded path (with its idle timeout) takes over.
 */
import assert from "node:assert/strict";
import type { Upstreams } from "../../lib/upstreams.ts";
import { within } from "../../testing/fault_checks.ts";
import { appWithUpstreams, startUpstream } from "../../testing/loopback_upstream.ts";

const HANG_GUARD_MS = 10_000;
const CHUNK = 64 * 1024;

/** An upstream video of `chunks` x 64 KiB with its length declared; `stallAfter` chunks, it waits. */
function videoUpstream(chunks: number, stallAfter = Infinity) {
  const resume = Promise.withResolvers<void>();
  const cancelled: string[] = [];
  const upstream = startUpstream((_req, url) => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === stallAfter) await resume.promise;
        if (sent++ === chunks) return controller.close();
        controller.enqueue(new Uint8Array(CHUNK).fill(sent & 255));
      },
      cancel: () => void cancelled.push(url.pathname),
    });
    return new Response(body, {
      headers: { "content-type": "video/mp4", "content-length": String(chunks * CHUNK) },
    });
  });
  return { ...upstream, resume: () => resume.resolve(), cancelled };
}

async function serve(origin: string, budgets: Partial<Upstreams> = {}) {
  const t = await appWithUpstreams({ media: origin, ...budgets });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}/api/image-proxy?url=`;
  return {
    ...t,
    get: (name: string, init?: RequestInit) =>
      within(
        fetch(base + encodeURIComponent(`https://video.twimg.com/${name}`), init),
        HANG_GUARD_MS,
        "proxy",
      ),
    paths: () => t.log.lines.filter((l) => l.msg === "request").map((l) => l.mediaPath),
    async stop() {
      await server.shutdown();
      await t.close();
    },
  };
}

Deno.test("a body with a declared length within the cap is passed on untouched", async () => {
  const upstream = videoUpstream(40);
  const s = await serve(upstream.origin);
  try {
    const res = await s.get("a.mp4");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), String(40 * CHUNK));
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(bytes.byteLength, 40 * CHUNK);
    assert.equal(bytes[39 * CHUNK], 40);
    assert.deepEqual(s.paths(), ["direct"]);
  } finally {
    await s.stop();
    await upstream.close();
  }
});

Deno.test("a client leaving a direct stream mid-way releases the upstream body", async () => {
  const upstream = videoUpstream(4_000); // 250 MiB, within the 512 MiB cap
  const s = await serve(upstream.origin);
  try {
    const client = new AbortController();
    const res = await s.get("long.mp4", { signal: client.signal });
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 512 * 1024) received += (await reader.read()).value?.byteLength ?? 0;
    client.abort();
    await reader.closed.catch(() => {});
    await within(
      (async () => {
        while (!upstream.cancelled.includes("/long.mp4")) {
          await new Promise((r) => setTimeout(r, 10));
        }
      })(),
      HANG_GUARD_MS,
      "the upstream body being cancelled",
    );
    assert.deepEqual(s.paths(), ["direct"]);
  } finally {
    await s.stop();
    await upstream.close();
  }
});

Deno.test("past mediaDirectStreams the guarded path takes over, and its idle timeout cuts a stall", async () => {
  const upstream = videoUpstream(8, 2);
  const s = await serve(upstream.origin, { mediaDirectStreams: 1, mediaIdleTimeoutMs: 200 });
  try {
    // The first stalled stream is direct: Deno copies it and nothing can cut it, so it holds
    // the only direct place until its upstream resumes.
    const first = await s.get("stalled.mp4");
    const firstBody = first.arrayBuffer();
    const second = await s.get("stalled.mp4");
    assert.equal(second.status, 200);
    await assert.rejects(within(second.arrayBuffer(), HANG_GUARD_MS, "guarded body"));
    const cut = s.log.lines.find((l) => l.msg === "media stream cut");
    assert.equal(cut?.reason, "idle");

    upstream.resume();
    assert.equal((await within(firstBody, HANG_GUARD_MS, "direct body")).byteLength, 8 * CHUNK);
    // Its completion gave the place back: the next body is direct again.
    await new Promise((r) => setTimeout(r, 50));
    const third = await s.get("after.mp4");
    assert.equal((await third.arrayBuffer()).byteLength, 8 * CHUNK);
    assert.deepEqual(s.paths(), ["direct", "guarded", "direct"]);
  } finally {
    await s.stop();
    await upstream.close();
  }
});
