/** Per-capture limits of the egress proxy: a byte budget, and connections open at once. */
import assert from "node:assert/strict";
import { createEgressProxy } from "../../lib/egress/proxy.ts";
import { createMemoryLogger } from "../../lib/log.ts";

/** A loopback server that sends `size` bytes to whoever connects, then closes. */
function blaster(size: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      (async () => {
        const chunk = new Uint8Array(64 * 1024).fill(120);
        try {
          for (let sent = 0; sent < size; sent += chunk.length) await conn.write(chunk);
        } catch {
          // Cut off by the proxy: what the test is about.
        } finally {
          try {
            conn.close();
          } catch {
            // Already closed.
          }
        }
      })();
    }
  })().catch(() => {});
  return { port: listener.addr.port, close: () => (listener.close(), served) };
}

function proxyWith(limits: { byteBudget?: number; maxConnections?: number }) {
  const log = createMemoryLogger();
  const proxy = createEgressProxy(
    {
      resolver: () => Promise.resolve(["127.0.0.1"]),
      allowPrivateNetwork: true,
      connectTimeoutMs: 2_000,
    },
    log,
    limits,
  );
  return { log, proxy, session: proxy.openSession() };
}

/** Opens a CONNECT tunnel to `port` and reads until the proxy closes it; the bytes read. */
async function tunnel(proxyUrl: string, port: number): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(proxyUrl).port) });
  await conn.write(new TextEncoder().encode(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`));
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    total += n;
  }
  conn.close();
  return total;
}

Deno.test("a capture over its byte budget is cut off, logged once, and gets no new connection", async () => {
  const source = blaster(4 * 1024 * 1024);
  const small = blaster(1000);
  const { log, proxy, session } = proxyWith({ byteBudget: 1024 * 1024 });
  try {
    const received = await tunnel(session.url, source.port);
    // What passed is the budget at most (plus the proxy's own 200 line), far below 4 MiB.
    assert.ok(received <= 1024 * 1024 + 64, `received ${received}`);
    assert.ok(received > 0);
    assert.equal(session.overBudget, true);
    assert.ok(session.bytesIn > 1024 * 1024);
    // The session is spent: the next tunnel is closed without a byte.
    assert.equal(await tunnel(session.url, source.port), 0);
    const warnings = log.lines.filter((l) =>
      l.msg === "capture byte budget exceeded; page cut off"
    );
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].budget, 1024 * 1024);
    // Another capture (session) has a budget of its own.
    const fresh = proxy.openSession();
    assert.ok(await tunnel(fresh.url, small.port) >= 1000);
  } finally {
    proxy.close();
    await source.close();
    await small.close();
  }
});

Deno.test("within its budget a capture gets every byte", async () => {
  const source = blaster(512 * 1024);
  const { proxy, session } = proxyWith({ byteBudget: 1024 * 1024 });
  try {
    const received = await tunnel(session.url, source.port);
    assert.ok(received >= 512 * 1024, `received ${received}`);
    assert.equal(session.overBudget, false);
  } finally {
    proxy.close();
    await source.close();
  }
});

Deno.test("connections beyond the per-capture maximum are closed on arrival", async () => {
  const { proxy, session } = proxyWith({ maxConnections: 2 });
  const port = Number(new URL(session.url).port);
  const conns: Deno.Conn[] = [];
  try {
    // Two idle connections (no request head yet) hold both places.
    for (let i = 0; i < 2; i++) conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    await new Promise((r) => setTimeout(r, 100));
    const third = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(third);
    assert.equal(await third.read(new Uint8Array(16)), null, "closed without an answer");
  } finally {
    for (const conn of conns) conn.close();
    proxy.close();
  }
});
