import assert from "node:assert/strict";
import { createDrainGate, drainThenClose } from "../../lib/http/drain.ts";
import { createMemoryLogger } from "../../lib/log.ts";

/** A request body that sends `first`, then waits for `resume` before sending the rest. */
function pausedBody(resume: Promise<void>) {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new Uint8Array(1000));
      await resume;
      controller.enqueue(new Uint8Array(2000));
      controller.close();
    },
  });
}

Deno.test("an upload in progress at shutdown arrives whole; later requests get 503", async () => {
  const arrived = Promise.withResolvers<void>();
  const gate = createDrainGate(async (request) => {
    arrived.resolve();
    const bytes = await request.arrayBuffer();
    return new Response(`received ${bytes.byteLength}`);
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, gate.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    const resume = Promise.withResolvers<void>();
    const upload = fetch(`${base}/upload`, {
      method: "POST",
      body: pausedBody(resume.promise),
      duplex: "half",
    } as RequestInit);
    await arrived.promise;
    const closing = gate.closeGate(5_000);
    const late = await fetch(`${base}/late`);
    assert.equal(late.status, 503);
    assert.equal(late.headers.get("retry-after"), "1");
    const envelope = await late.json();
    assert.equal(envelope.code, "upstream_unavailable");
    assert.equal(envelope.message, envelope.error);
    resume.resolve();
    assert.equal(await closing, true);
    await server.shutdown();
    const res = await upload;
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "received 3000");
  } finally {
    await server.shutdown().catch(() => {});
  }
});

Deno.test("the gate keeps the client's abort signal on requests with a body", async () => {
  const aborted = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  const gate = createDrainGate(async (request) => {
    await request.text();
    request.signal.addEventListener("abort", () => aborted.resolve());
    started.resolve();
    await aborted.promise;
    return new Response("late");
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, gate.fetch);
  try {
    const client = new AbortController();
    const pending = fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "POST",
      body: "{}",
      signal: client.signal,
    }).catch(() => null);
    await started.promise;
    client.abort();
    await aborted.promise;
    assert.equal(await pending, null);
  } finally {
    await server.shutdown();
  }
});

Deno.test("closing an idle gate returns at once", async () => {
  const gate = createDrainGate(() => new Response("ok"));
  assert.equal(await gate.closeGate(10_000), true);
});

Deno.test("one component that fails to close does not keep the others open", async () => {
  const gate = createDrainGate(() => new Response("ok"));
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, gate.fetch);
  const log = createMemoryLogger();
  const closed: string[] = [];
  const shutdown = drainThenClose({
    gate,
    server,
    log,
    timeoutMs: 1_000,
    close: [
      () => closed.push("filters"),
      () => Promise.reject(new Error("store close failed")),
      () => closed.push("exporter"),
      () => closed.push("browser"),
    ],
  });
  assert.equal(await shutdown("SIGTERM"), true);
  assert.deepEqual(closed, ["filters", "exporter", "browser"]);
  const failure = log.lines.find((l) => l.msg === "a component failed to close");
  assert.ok(failure, "the failure is logged");
  assert.equal(log.lines.find((l) => l.msg === "stopped")?.clean, false);
});
