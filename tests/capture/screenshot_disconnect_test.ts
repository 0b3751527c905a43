import assert from "node:assert/strict";
import { createCaptureApp } from "../../testing/capture_app.ts";

Deno.test("a client that disconnects mid-capture aborts its render", async () => {
  const t = await createCaptureApp();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, t.app.fetch);
  try {
    t.capture.hold();
    const client = new AbortController();
    const request = fetch(`http://127.0.0.1:${server.addr.port}/api/screenshot`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/slow" }),
      signal: client.signal,
    });
    for (let i = 0; i < 1000 && t.capture.jobs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal(t.capture.jobs.length, 1);
    client.abort();
    await assert.rejects(request);
    const signal = t.capture.signals[0]!;
    for (let i = 0; i < 1000 && !signal.aborted; i++) await new Promise((r) => setTimeout(r, 1));
    assert.equal(signal.aborted, true, "the capturer was told to stop");
    t.capture.release();
  } finally {
    await server.shutdown();
    await t.close();
  }
});
