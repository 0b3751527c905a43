/**
 * GET /metrics of the real process (docs/operating.md), scraped as Prometheus would and parsed
 * by a real parser: a capture by the local Chromium, a cache hit, an export and a 429 each move
 * their series; the browser start and the store latency are counted; the gauges are at rest.
 */
import assert from "node:assert/strict";
import { servePages } from "../../testing/capture_fixtures.ts";
import { histogramCount, sampleValue } from "../../testing/prometheus.ts";
import { type ServiceProcess, startService } from "../../testing/service_process.ts";
import { exportForm } from "../../testing/export_form.ts";
import { eventually } from "../../testing/wait.ts";

const TOKEN = "system-metrics-token-0123456789";
const STORE_OPERATIONS = "shotline_store_operation_duration_seconds";

async function scrape(svc: ServiceProcess): Promise<string> {
  const res = await fetch(`${svc.base}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 200);
  return await res.text();
}

async function capture(svc: ServiceProcess, url: string): Promise<number> {
  const res = await fetch(`${svc.base}/api/screenshot`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("the real process counts captures, cache hits, exports, 429s and browser starts", async () => {
  const pages = servePages();
  const svc = await startService({
    KV_PATH: ":memory:",
    ALLOW_PRIVATE_NETWORK: "true",
    RATE_LIMIT_PER_MINUTE: "2",
    METRICS_TOKEN: TOKEN,
  });
  try {
    const before = await scrape(svc);
    let scrapes = 1;
    assert.equal(await capture(svc, `${pages.origin}/`), 200);
    // The answer does not wait for the cache write: the hit below is read from the store only
    // once the write has landed (before that it is served from the write, as a hit too).
    const blobWrite = { store: "deno-kv", operation: "set_blob", outcome: "ok" };
    await eventually(async () => {
      scrapes++;
      const now = await scrape(svc);
      return histogramCount(now, STORE_OPERATIONS, blobWrite) >
        histogramCount(before, STORE_OPERATIONS, blobWrite);
    }, "the first capture's cache write");
    assert.equal(await capture(svc, `${pages.origin}/`), 200);
    assert.equal(await capture(svc, `${pages.origin}/`), 429);
    const form = await exportForm("png", "medium");
    const exported = await fetch(`${svc.base}/api/export`, { method: "POST", body: form });
    assert.equal(exported.status, 200);
    const path = exported.headers.get("x-export-encoder") ?? "";
    await exported.body?.cancel();
    const after = await scrape(svc);

    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    const observed = (name: string, labels: Record<string, string>) =>
      histogramCount(after, name, labels) - histogramCount(before, name, labels);

    const rendered = { backend: "chromium-local", outcome: "ok" };
    assert.equal(observed("shotline_capture_duration_seconds", rendered), 1);
    assert.equal(delta("shotline_capture_cache_lookups_total", { result: "miss" }), 1);
    assert.equal(delta("shotline_capture_cache_lookups_total", { result: "hit" }), 1);
    assert.equal(delta("shotline_rate_limit_rejections_total"), 1);
    const exportLabels = { format: "png", preset: "medium", path, outcome: "ok" };
    assert.equal(observed("shotline_export_duration_seconds", exportLabels), 1);
    const requests = "shotline_http_requests_total";
    assert.equal(delta(requests, { route: "/api/screenshot", method: "POST", status: "200" }), 2);
    assert.equal(delta(requests, { route: "/api/screenshot", method: "POST", status: "429" }), 1);
    assert.equal(delta(requests, { route: "/metrics", method: "GET", status: "200" }), scrapes);
    assert.ok(
      sampleValue(after, "shotline_browser_starts_total", { backend: "chromium-local" }) >= 1,
    );
    const blobReads = { store: "deno-kv", operation: "get_blob", outcome: "ok" };
    assert.equal(observed(STORE_OPERATIONS, blobReads), 2);
    assert.equal(sampleValue(after, "shotline_capture_queue_depth"), 0);
    assert.equal(sampleValue(after, "shotline_captures_in_flight"), 0);
  } finally {
    await svc.stop();
    await pages.close();
  }
});
