/** Request bodies read as their chunks arrive: whole, in order, and shared with Hono's readers. */
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/app_env.ts";
import { requestBytes, sliceStream } from "../../lib/http/request_bytes.ts";
import { SLICE_BYTES } from "../../lib/http/turns.ts";

function reader() {
  const app = new Hono<AppEnv>();
  app.post("/", async (c) => {
    const bytes = await requestBytes(c);
    // A later reader (a validator) gets the same bytes from the cache, not from the spent stream.
    const again = new Uint8Array(await c.req.arrayBuffer());
    const text = await c.req.text();
    return c.json({
      size: bytes.length,
      same: again.length === bytes.length,
      head: text.slice(0, 4),
    });
  });
  return app;
}

const body = new Uint8Array(SLICE_BYTES * 2 + 777);
for (let i = 0; i < body.length; i++) body[i] = 65 + (i % 26);

Deno.test("a body of declared length, and one of unknown length, arrive whole", async () => {
  const app = reader();
  for (const declared of [true, false]) {
    const headers = declared ? { "content-length": String(body.length) } : undefined;
    const res = await app.request("/", { method: "POST", headers, body: sliceStream(body) });
    assert.deepEqual(
      await res.json(),
      { size: body.length, same: true, head: "ABCD" },
      `${declared}`,
    );
  }
});

Deno.test("over a socket, a chunked body is joined in order", async () => {
  const app = new Hono<AppEnv>();
  let received: Uint8Array | undefined;
  app.post("/", async (c) => {
    received = await requestBytes(c);
    return c.body(null, 204);
  });
  await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  // A stream body without a length goes out chunked.
  const res = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
    method: "POST",
    body: sliceStream(body),
  });
  assert.equal(res.status, 204);
  assert.deepEqual(received, body);
});
