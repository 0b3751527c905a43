/**
 * GET /metrics in process: absent without METRICS_TOKEN, 401 for a missing or wrong token,
 * valid Prometheus text for the right one, never listed in the published documents, and
 * counters that move after an export and a 429. The metrics belong to the process, so every
 * assertion compares a scrape before with one after.
 */
import assert from "node:assert/strict";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { histogramCount, parseExposition, sampleValue } from "../../testing/prometheus.ts";
import { exportForm } from "../../testing/export_form.ts";

const TOKEN = "metrics-test-token-0123456789";

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  return await res.text();
}

Deno.test("without METRICS_TOKEN, /metrics does not exist", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    await assertEnvelope(t.app, res, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("a missing or wrong bearer token gets 401; the right one the text exposition", async () => {
  const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    const missing = await t.app.request("/metrics");
    await assertEnvelope(t.app, missing, 401, "unauthorized");
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    for (const given of [`${TOKEN}x`, TOKEN.slice(1), "", `Basic ${TOKEN}`]) {
      const wrong = await t.app.request("/metrics", {
        headers: { Authorization: given.startsWith("Basic") ? given : `Bearer ${given}` },
      });
      await assertEnvelope(t.app, wrong, 401, "unauthorized");
    }
    const res = await t.app.request("/metrics", {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const families = parseExposition(await res.text());
    const names = families.map((f) => f.name);
    for (
      const name of [
        "shotline_http_requests_total",
        "shotline_capture_duration_seconds",
        "shotline_capture_queue_depth",
        "shotline_captures_in_flight",
        "shotline_capture_cache_lookups_total",
        "shotline_browser_starts_total",
        "shotline_egress_refusals_total",
        "shotline_media_proxy_bytes_total",
        "shotline_capture_link_bytes_total",
        "shotline_export_duration_seconds",
        "shotline_rate_limit_rejections_total",
        "shotline_store_operation_duration_seconds",
      ]
    ) assert.ok(names.includes(name), `${name} is exposed`);
    const histogram = families.find((f) => f.name === "shotline_capture_duration_seconds");
    assert.equal(histogram?.type, "HISTOGRAM");
  } finally {
    await t.close();
  }
});

Deno.test("/metrics is in neither /openapi.json nor the llms files", async () => {
  const t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    for (const path of ["/openapi.json", "/llms.txt", "/llms-full.txt", "/docs"]) {
      const res = await t.app.request(path);
      assert.equal(res.status, 200);
      assert.ok(!(await res.text()).includes("/metrics"), `${path} does not mention /metrics`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("an export, a capture and a 429 move their counters", async () => {
  const t = await createCaptureApp({
    env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: "1" },
  });
  try {
    const before = await scrape(t);
    const form = await exportForm("jpeg", "low", 64, 48);
    const exported = await t.app.request("/api/export", { method: "POST", body: form });
    assert.equal(exported.status, 200);
    await exported.body?.cancel();
    const first = await t.shoot({ url: "https://example.com/metrics-test" });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const limited = await t.shoot({ url: "https://example.com/metrics-test" });
    await assertEnvelope(t.app, limited, 429, "rate_limited");
    const after = await scrape(t);

    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    const exportLabels = { format: "jpeg", preset: "low", path: "wasm", outcome: "ok" };
    const exports = (text: string) =>
      histogramCount(text, "shotline_export_duration_seconds", exportLabels);
    assert.equal(exports(after) - exports(before), 1);
    assert.equal(delta("shotline_rate_limit_rejections_total"), 1);
    assert.equal(delta("shotline_capture_cache_lookups_total", { result: "miss" }), 1);
    const requests = "shotline_http_requests_total";
    assert.equal(delta(requests, { route: "/api/export", method: "POST", status: "200" }), 1);
    assert.equal(delta(requests, { route: "/api/screenshot", status: "200" }), 1);
    assert.equal(delta(requests, { route: "/api/screenshot", status: "429" }), 1);
    const windows = (text: string) =>
      histogramCount(text, "shotline_store_operation_duration_seconds", {
        store: "deno-kv",
        operation: "hit_window",
        outcome: "ok",
      });
    assert.equal(windows(after) - windows(before), 2, "both rate-limit hits were timed");
  } finally {
    await t.close();
  }
});
