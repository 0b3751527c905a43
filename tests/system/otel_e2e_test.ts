/**
 * Traces from the real process (docs/operating.md): main.ts runs with Deno's built-in
 * OpenTelemetry (OTEL_DENO=true) exporting OTLP/HTTP JSON to a receiver on loopback. After a
 * capture, a cached capture, an export, a post lookup and a proxied media file (from loopback
 * hosts impersonating the real ones), our stage spans arrive with the attributes an operator
 * filters on, nested under Deno's server spans, and no span carries the page's query string or
 * the metrics token.
 */
import assert from "node:assert/strict";
import { servePages } from "../../testing/capture_fixtures.ts";
import { eventually } from "../../testing/wait.ts";
import { startService } from "../../testing/service_process.ts";
import { exportForm } from "../../testing/export_form.ts";
import {
  IMPERSONATED_MEDIA_URL,
  IMPERSONATED_POST,
  impersonatedUpstreams,
} from "../../testing/impersonated_upstreams.ts";
import { TINY_PNG } from "../../testing/loopback_upstream.ts";
import { type ReceivedSpan, startOtlpReceiver } from "../../testing/otlp_receiver.ts";

const SECRET_QUERY = "session=otel-secret-4711";
const METRICS_TOKEN = "otel-test-metrics-token-0123456789";
// Deno batches spans; they are exported within seconds, and at exit at the latest.
const EXPORT_WAIT_MS = 30_000;

const CAPTURE_STAGES = [
  "capture",
  "capture.cache_read",
  "capture.queue_wait",
  "capture.render",
  "capture.context_acquire",
  "capture.navigation",
  "capture.readiness_wait",
  "capture.settle",
  "capture.screenshot",
  "capture.cache_write",
];
const EXPORT_STAGES = ["export", "export.admission", "export.transcode"];
const UPSTREAM_STAGES = ["post.lookup", "media.proxy", "media.proxy_stream"];

Deno.test("captures, an export, a post and a media stream arrive as spans, without secrets", async () => {
  const receiver = startOtlpReceiver();
  const pages = servePages();
  const upstreams = impersonatedUpstreams();
  const svc = await startService({
    ...upstreams.env,
    KV_PATH: ":memory:",
    ALLOW_PRIVATE_NETWORK: "true",
    METRICS_TOKEN,
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: "shotline-test",
  });
  try {
    const target = `${pages.origin}/?${SECRET_QUERY}`;
    for (const cached of [false, true]) {
      const res = await fetch(`${svc.base}/api/screenshot`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: target }),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).cached, cached);
    }
    const form = await exportForm("webp", "high");
    const exported = await fetch(`${svc.base}/api/export`, { method: "POST", body: form });
    assert.equal(exported.status, 200);
    const encoder = exported.headers.get("x-export-encoder");
    await exported.body?.cancel();
    const post = await fetch(`${svc.base}/api/post/${IMPERSONATED_POST.id_str}`);
    assert.equal(post.status, 200);
    await post.body?.cancel();
    const media = await fetch(`${svc.base}/api/image-proxy?url=${IMPERSONATED_MEDIA_URL}`);
    assert.equal(media.status, 200);
    assert.deepEqual(new Uint8Array(await media.arrayBuffer()), TINY_PNG);
    const scrape = await fetch(`${svc.base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(scrape.status, 200);
    await scrape.body?.cancel();

    const named = (name: string) => receiver.spans.filter((s) => s.name === name);
    await eventually(
      () =>
        [...CAPTURE_STAGES, ...EXPORT_STAGES, ...UPSTREAM_STAGES].every((name) =>
          named(name).length > 0
        ),
      `every stage span arrives (have: ${[...new Set(receiver.spans.map((s) => s.name))]})`,
      { timeoutMs: EXPORT_WAIT_MS },
    );
    await eventually(() => named("capture").length === 2, "both captures", {
      timeoutMs: EXPORT_WAIT_MS,
    });

    const [rendered, hit] = ["false", "true"].map((cached) =>
      named("capture").find((s) => String(s.attributes.cached) === cached)
    );
    assert.ok(rendered && hit, "a rendered and a cached capture");
    assert.deepEqual(pick(rendered, ["deviceType", "colorScheme", "backend", "outcome"]), {
      deviceType: "desktop",
      colorScheme: "light",
      backend: "chromium-local",
      outcome: "ok",
    });
    assert.equal(hit.attributes.backend, "chromium-local");
    assert.equal(named("capture.render")[0].attributes.backend, "chromium-local");
    const renderId = named("capture.render")[0].spanId;
    const stages = ["capture.navigation", "capture.readiness_wait", "capture.settle"];
    for (const stage of [...stages, "capture.screenshot"]) {
      // The boundary self-test navigates too, under its own span: look among the render's children.
      const children = named(stage).filter((span) => span.parentSpanId === renderId);
      assert.equal(children.length, 1, `${stage} is a child of the render`);
    }
    assert.equal(
      named("capture.self_test")[0]?.attributes.outcome,
      "ok",
      "the self-test is traced",
    );
    assert.deepEqual(pick(named("export")[0], ["format", "preset", "path", "outcome"]), {
      format: "webp",
      preset: "high",
      path: encoder,
      outcome: "ok",
    });
    assert.equal(named("export.transcode")[0].attributes.path, encoder);

    assert.deepEqual(pick(named("post.lookup")[0], ["source", "result", "outcome"]), {
      source: "miss",
      result: "found",
      outcome: "ok",
    });
    assert.deepEqual(pick(named("media.proxy_stream")[0], ["media.host", "bytes", "outcome"]), {
      "media.host": "pbs.twimg.com",
      bytes: TINY_PNG.length,
      outcome: "ok",
    });
    assert.equal(named("media.proxy")[0].attributes.status, 200);

    // Deno's own server spans: named by route, our spans beneath them.
    const server = receiver.spans.find((s) =>
      s.scope !== "shotline" && s.attributes["http.route"] === "/api/screenshot"
    );
    assert.ok(server, "Deno's server span carries http.route");
    assert.equal(server.name, "POST /api/screenshot");
    assert.ok(named("capture").some((s) => s.parentSpanId === server.spanId));

    for (const span of receiver.spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        const text = String(value);
        assert.ok(!text.includes(SECRET_QUERY), `${span.name} ${key} holds the page's query`);
        assert.ok(!text.includes(METRICS_TOKEN), `${span.name} ${key} holds the token`);
        if (span.scope === "shotline") assert.ok(!text.includes("?"), `${span.name} ${key}`);
      }
    }
    assert.ok(!receiver.bodies.some((b) => b.includes(METRICS_TOKEN)), "no signal has the token");
  } finally {
    await svc.stop();
    await pages.close();
    await upstreams.close();
    await receiver.close();
  }
});

function pick(span: ReceivedSpan, keys: string[]) {
  return Object.fromEntries(keys.map((key) => [key, span.attributes[key]]));
}
