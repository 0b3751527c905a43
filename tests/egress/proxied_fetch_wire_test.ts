/**
 * The wire side of the service's own GET (lib/egress/proxied_fetch.ts): bodies framed by length,
 * by chunks and by the close, gzip, redirect chains and their limit, the byte cap (an endless body
 * is cut, and read no further) and the deadline. A raw TCP server on loopback answers, through a
 * loopback egress proxy session (ALLOW_PRIVATE_NETWORK on: the server is on loopback).
 */
import assert from "node:assert/strict";
import { createEgressProxy } from "../../lib/egress/proxy.ts";
import { getThroughProxy } from "../../lib/egress/proxied_fetch.ts";
import { readHead, writeAll } from "../../lib/egress/http_wire.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { eventually } from "../../testing/wait.ts";

const encoder = new TextEncoder();
const BODY = encoder.encode("the icon's bytes");
const MAX_BYTES = 64 * 1024;

const head = (status: string, headers: string[]) =>
  encoder.encode([`HTTP/1.1 ${status}`, ...headers, "", ""].join("\r\n"));

/** A raw HTTP/1.1 server: each path writes its own answer; `written` counts endless bytes. */
function rawServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state = { written: 0, endlessDone: false, requests: [] as string[] };
  const answer = async (conn: Deno.Conn) => {
    const request = await readHead(conn, 64 * 1024);
    if (!request) return;
    const path = request.startLine.split(" ")[1];
    state.requests.push(path);
    const hops = /^\/hops\/(\d+)$/.exec(path);
    if (hops) {
      const left = Number(hops[1]);
      const next = left === 0 ? "/length" : `/hops/${left - 1}`;
      return await writeAll(conn, head("302 Found", [`Location: ${next}`, "Content-Length: 0"]));
    }
    switch (path) {
      case "/length":
        return await writeAll(conn, concat(head("200 OK", ["Content-Length: 16"]), BODY));
      case "/chunked":
        await writeAll(conn, head("200 OK", ["Transfer-Encoding: chunked"]));
        await writeAll(conn, encoder.encode("4;x=1\r\nthe \r\nc\r\nicon's bytes\r\n0\r\n"));
        return await writeAll(conn, encoder.encode("Trailer: x\r\n\r\n"));
      case "/close":
        await writeAll(conn, concat(head("200 OK", ["Connection: close"]), BODY));
        return;
      case "/gzip": {
        const gz = new Uint8Array(
          await new Response(new Blob([BODY]).stream().pipeThrough(new CompressionStream("gzip")))
            .arrayBuffer(),
        );
        const headers = ["Content-Encoding: gzip", `Content-Length: ${gz.length}`];
        return await writeAll(conn, concat(head("200 OK", headers), gz));
      }
      case "/declared-large":
        return await writeAll(conn, head("200 OK", [`Content-Length: ${MAX_BYTES + 1}`]));
      case "/endless": {
        await writeAll(conn, head("200 OK", ["Content-Type: image/png"]));
        const block = new Uint8Array(64 * 1024);
        try {
          while (true) state.written += await conn.write(block);
        } catch {
          // Cut by the client: what we managed to write is the count.
        }
        state.endlessDone = true;
        return;
      }
      case "/off-web":
        return await writeAll(conn, head("302 Found", ["Location: file:///etc/passwd"]));
      case "/silent":
        return await new Promise(() => {}); // never answers; the client's deadline ends it
    }
    await writeAll(conn, head("404 Not Found", ["Content-Length: 0"]));
  };
  (async () => {
    for await (const conn of listener) {
      answer(conn).catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch { /* closed by the other side */ }
      });
    }
  })().catch(() => {});
  return { state, port: listener.addr.port, close: () => listener.close() };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

Deno.test("bodies by length, chunks, close and gzip; redirects, caps and the deadline", async (t) => {
  const server = rawServer();
  const proxy = createEgressProxy({
    resolver: () => Promise.resolve([]),
    allowPrivateNetwork: true,
    connectTimeoutMs: 2_000,
  }, createMemoryLogger());
  const session = proxy.openSession();
  const get = (path: string, signal = AbortSignal.timeout(10_000)) =>
    getThroughProxy(`http://127.0.0.1:${server.port}${path}`, {
      route: { proxyUrl: session.url },
      headers: { "user-agent": "Probe/1" },
      maxBytes: MAX_BYTES,
      signal,
    });
  try {
    await t.step("every framing gives the same bytes", async () => {
      for (const path of ["/length", "/chunked", "/close", "/gzip"]) {
        assert.deepEqual(await get(path), { ok: true, bytes: BODY }, path);
      }
    });
    await t.step("a redirect chain is followed hop by hop, up to five hops", async () => {
      server.state.requests.length = 0;
      assert.deepEqual(await get("/hops/4"), { ok: true, bytes: BODY });
      assert.equal(server.state.requests.length, 6, "each hop went out on its own");
      assert.deepEqual(await get("/hops/5"), { ok: false, reason: "too many redirects" });
      assert.deepEqual(await get("/off-web"), { ok: false, reason: "redirect off the web" });
    });
    await t.step("a body over the cap is refused; an endless one is cut", async () => {
      const large = await get("/declared-large");
      assert.deepEqual(large, { ok: false, reason: `larger than ${MAX_BYTES} bytes` });
      const endless = await get("/endless");
      assert.deepEqual(endless, { ok: false, reason: `larger than ${MAX_BYTES} bytes` });
      // The server's writes fail once the connections are closed: it is read no further.
      await eventually(() => server.state.endlessDone, "the endless body was cut");
      console.log(`endless icon: ${server.state.written} bytes written before the cut`);
    });
    await t.step("a header value with a line break is never sent", async () => {
      const answer = await getThroughProxy(`http://127.0.0.1:${server.port}/length`, {
        route: { proxyUrl: session.url },
        headers: { "user-agent": "Probe/1\r\nX-Injected: 1" },
        maxBytes: MAX_BYTES,
        signal: AbortSignal.timeout(10_000),
      });
      assert.deepEqual(answer, { ok: false, reason: "a header value the wire cannot carry" });
    });
    await t.step("a host that never answers ends at the deadline", async () => {
      const controller = new AbortController();
      const answer = get("/silent", controller.signal);
      await eventually(() => server.state.requests.includes("/silent"), "the request arrived");
      controller.abort(new Error("no answer in time"));
      assert.deepEqual(await answer, { ok: false, reason: "no answer in time" });
    });
  } finally {
    proxy.close();
    server.close();
  }
});
