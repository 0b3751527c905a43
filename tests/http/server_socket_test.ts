import assert from "node:assert/strict";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

async function serve(env: Record<string, string> = {}) {
  const t = await createTestApp({ env });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    ...t,
    base,
    async stop() {
      await server.shutdown();
      await t.close();
    },
  };
}

Deno.test("over a real socket the client IP is the peer address", async () => {
  const s = await serve();
  try {
    const res = await fetch(`${s.base}/healthz`, {
      headers: { "X-Request-Id": "sock-1", "X-Forwarded-For": "198.51.100.9" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const line = s.log.lines.find((l) => l.requestId === "sock-1");
    assert.equal(line?.clientIp, "127.0.0.1", "X-Forwarded-For is not trusted by default");
  } finally {
    await s.stop();
  }
});

Deno.test("with TRUST_PROXY_HOPS=1 the forwarded client is logged", async () => {
  const s = await serve({ TRUST_PROXY_HOPS: "1" });
  try {
    const res = await fetch(`${s.base}/healthz`, {
      headers: { "X-Request-Id": "sock-2", "X-Forwarded-For": "203.0.113.5, 198.51.100.9" },
    });
    await res.body?.cancel();
    const line = s.log.lines.find((l) => l.requestId === "sock-2");
    assert.equal(line?.clientIp, "198.51.100.9");
  } finally {
    await s.stop();
  }
});

Deno.test("errors over a socket keep the envelope, request id and Allow header", async () => {
  const s = await serve();
  try {
    const res = await fetch(`${s.base}/openapi.json`, { method: "DELETE" });
    assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
    assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    const body = await assertEnvelope(s.app, res, 405, "method_not_allowed");
    assert.equal(body.documentation, `${s.base}/docs#error-method_not_allowed`);
  } finally {
    await s.stop();
  }
});
