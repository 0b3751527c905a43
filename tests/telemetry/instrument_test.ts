/**
 * The recording points one by one, read from the process registry (differences only): store
 * latency with its outcome, a backend's render with its error code, a refusal at the egress
 * proxy, and the bytes of a proxied media body.
 */
import assert from "node:assert/strict";
import { ApiError } from "../../lib/errors.ts";
import { createEgressProxy } from "../../lib/egress/proxy.ts";
import type { Capturer } from "../../lib/capture/types.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import { instrumentBackend } from "../../lib/capture/instrument.ts";
import { instrumentStore } from "../../lib/store/instrument.ts";
import { METRICS } from "../../lib/telemetry/metrics.ts";
import { appWithUpstreams, TINY_PNG } from "../../testing/loopback_upstream.ts";
import { startMediaUpstream } from "../../testing/media_upstream.ts";

/** Observations so far of one histogram series. */
async function observations(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await METRICS.registry.getSingleMetric(name)!.get();
  const matches = (l: Record<string, unknown>) =>
    Object.entries(labels).every(([key, value]) => l[key] === value);
  // A histogram's values are its buckets, sum and count, told apart by metricName.
  const values = metric.values as { metricName?: string; labels: object; value: number }[];
  const count = values.find((v) =>
    v.metricName === `${name}_count` && matches(v.labels as Record<string, unknown>)
  );
  return count?.value ?? 0;
}

async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await METRICS.registry.getSingleMetric(name)!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

Deno.test("store calls are timed with their outcome; the wrapped store answers as before", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = instrumentStore(createKvStore(kv, { now: () => Date.now() }));
  const name = "shotline_store_operation_duration_seconds";
  const ok = { store: "deno-kv", operation: "set_value", outcome: "ok" };
  const failed = { store: "deno-kv", operation: "get_value", outcome: "error" };
  const [okBefore, failedBefore] = [await observations(name, ok), await observations(name, failed)];
  await store.setValue(["k"], { v: 1 }, 60_000);
  assert.deepEqual(await store.getValue(["k"]), { v: 1 });
  kv.close();
  await assert.rejects(store.getValue(["k"]));
  assert.equal(await observations(name, ok) - okBefore, 1);
  assert.equal(await observations(name, failed) - failedBefore, 1);
});

Deno.test("a backend's render is timed under its name with the API error code as outcome", async () => {
  const timeout = new ApiError(408, "upstream_timeout", "The page did not load in time.");
  const backend: Capturer = {
    capture: () => Promise.reject(timeout),
    status: () => [{ name: "test-backend", state: "ready" }],
    close: () => Promise.resolve(),
  };
  const instrumented = instrumentBackend(backend, "test-backend");
  const labels = { backend: "test-backend", outcome: "upstream_timeout" };
  const before = await observations("shotline_capture_duration_seconds", labels);
  const job = { url: "https://example.com/", deviceType: "desktop", colorScheme: "light" } as const;
  await assert.rejects(instrumented.capture(job), (error) => error === timeout);
  assert.equal(await observations("shotline_capture_duration_seconds", labels) - before, 1);
  assert.deepEqual(instrumented.status(), backend.status());
});

Deno.test("a destination refused by the egress proxy is counted by reason", async () => {
  const proxy = createEgressProxy({
    resolver: () => Promise.resolve(["10.0.0.7"]),
    allowPrivateNetwork: false,
    dial: () => Promise.reject(new Error("never dialled")),
    connectTimeoutMs: 2_000,
  }, createMemoryLogger());
  const session = proxy.openSession();
  const before = await counter("shotline_egress_refusals_total", { reason: "forbidden_address" });
  try {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(session.url).port),
    });
    await conn.write(
      new TextEncoder().encode("GET http://intranet.test/ HTTP/1.1\r\nHost: intranet.test\r\n\r\n"),
    );
    const reply = new Uint8Array(1024);
    assert.match(
      new TextDecoder().decode(reply.subarray(0, await conn.read(reply) ?? 0)),
      /^HTTP\/1\.1 403/,
    );
    conn.close();
  } finally {
    proxy.close();
  }
  assert.equal(
    await counter("shotline_egress_refusals_total", { reason: "forbidden_address" }) - before,
    1,
  );
  assert.equal(session.refusals.length, 1);
});

Deno.test("bytes streamed by the media proxy are counted", async () => {
  const upstream = startMediaUpstream();
  const t = await appWithUpstreams({ media: upstream.origin });
  try {
    const before = await counter("shotline_media_proxy_bytes_total");
    const url = encodeURIComponent("https://pbs.twimg.com/media/ok.png");
    const res = await t.app.request(`/api/image-proxy?url=${url}`);
    assert.equal(res.status, 200);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), TINY_PNG);
    assert.equal(await counter("shotline_media_proxy_bytes_total") - before, TINY_PNG.length);
  } finally {
    await t.close();
    await upstream.close();
  }
});
