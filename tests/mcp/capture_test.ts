/**
 * capture_screenshot over /mcp with the SDK's client, on a capturer double: the answer, the
 * envelope of every refusal, the per-IP limit shared with POST /api/screenshot, the scale-down
 * of an image clients cannot take, and what logs and metrics record.
 */
import assert from "node:assert/strict";
import { METRICS } from "../../lib/telemetry/metrics.ts";
import { pngSize } from "../../testing/png.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { shadeOf, solidCapturer, solidPng } from "../../testing/solid_capturer.ts";
import { assertToolError, imageOf, mcpSession, textsOf } from "../../testing/mcp.ts";
import { sampleValue } from "../../testing/prometheus.ts";
import { eventually } from "../../testing/wait.ts";
import type { Capturer } from "../../lib/capture/types.ts";

const PAGE = "https://example.com/";

Deno.test("capture_screenshot (view full) answers with the PNG and the operation's JSON without the image", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const result = await mcp.call("capture_screenshot", {
      url: PAGE,
      colorScheme: "dark",
      view: "full",
    });
    const { mimeType, bytes } = imageOf(result);
    assert.equal(mimeType, "image/png");
    assert.deepEqual(pngSize(bytes), { width: 1920, height: 1080 });
    assert.ok(shadeOf(bytes) < 32, "the dark rendering of the capturer");
    const [json, ...more] = textsOf(result);
    assert.deepEqual(more, [], "no scale note for an image clients take");
    const body = JSON.parse(json);
    assert.equal(body.screenshot, undefined);
    assert.equal(body.url, PAGE);
    assert.equal(body.cached, false);
    assert.equal(body.colorScheme, "dark");
    assert.deepEqual([body.width, body.height], [1920, 1080]);
    assert.equal(body.httpStatus, 200);

    // The same cache as HTTP: the route answers the same capture from it.
    const http = await fetch(`${mcp.base}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: PAGE, colorScheme: "dark" }),
    });
    assert.equal(http.status, 200);
    assert.equal((await http.json()).cached, true);
    assert.equal(t.capture.jobs.length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("a forbidden address, a bad option and a missing url are isError results with the envelope", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const loopback = await mcp.call("capture_screenshot", { url: "http://127.0.0.1:9/" });
    await assertToolError(t.app, loopback, 400, "invalid_url");
    const option = await mcp.call("capture_screenshot", { url: PAGE, deviceType: "tablet" });
    const envelope = await assertToolError(t.app, option, 400, "unsupported_value");
    assert.match(String(envelope.hint), /desktop, mobile/);
    const missing = await mcp.call("capture_screenshot", {});
    await assertToolError(t.app, missing, 400, "invalid_request");
    assert.equal(t.capture.jobs.length, 0, "nothing was rendered");
  } finally {
    await t.close();
  }
});

Deno.test("the 21st capture in a minute is rate_limited, HTTP and MCP calls counted together", async () => {
  const t = await createCaptureApp({ env: { RATE_LIMIT_PER_MINUTE: "20" } });
  try {
    await using mcp = await mcpSession(t.app);
    for (let i = 0; i < 10; i++) {
      const http = await fetch(`${mcp.base}/api/screenshot`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: PAGE }),
      });
      assert.equal(http.status, 200);
      await http.body?.cancel();
    }
    for (let i = 0; i < 10; i++) {
      const result = await mcp.call("capture_screenshot", { url: PAGE });
      assert.notEqual(result.isError, true, `call ${i + 11}: ${textsOf(result)}`);
    }
    const refused = await mcp.call("capture_screenshot", { url: PAGE });
    const envelope = await assertToolError(t.app, refused, 429, "rate_limited");
    assert.ok(Number(envelope.retryAfter) > 0, "retryAfter");
    assert.match(String(envelope.hint), /20 requests per minute per IP/);
  } finally {
    await t.close();
  }
});

Deno.test("behind a trusted proxy each forwarded client has its own limit", async () => {
  const t = await createCaptureApp({ env: { RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY_HOPS: "1" } });
  try {
    await using mcp = await mcpSession(t.app, { "X-Forwarded-For": "203.0.113.7" });
    for (let i = 0; i < 2; i++) {
      assert.notEqual((await mcp.call("capture_screenshot", { url: PAGE })).isError, true);
    }
    const third = await mcp.call("capture_screenshot", { url: PAGE });
    await assertToolError(t.app, third, 429, "rate_limited");
    const other = await mcp.connect({ "X-Forwarded-For": "198.51.100.9" });
    const first = await mcp.call("capture_screenshot", { url: PAGE }, other);
    assert.notEqual(first.isError, true, textsOf(first).join());
    const lines = t.log.lines.filter((l) => l.path === "/api/screenshot");
    assert.deepEqual(
      lines.map((l) => [l.clientIp, l.status]),
      [["203.0.113.7", 200], ["203.0.113.7", 200], ["203.0.113.7", 429], ["198.51.100.9", 200]],
    );
  } finally {
    await t.close();
  }
});

Deno.test("a capture call the render queue refuses gives its hit back, as over HTTP", async () => {
  // One slot, held by another client; at the shortest budget nothing may wait behind it.
  const t = await createCaptureApp({
    env: {
      RATE_LIMIT_PER_MINUTE: "2",
      TRUST_PROXY_HOPS: "1",
      MAX_CONCURRENT_CAPTURES: "1",
      CAPTURE_TIMEOUT_MS: "1000",
    },
  });
  try {
    t.capture.hold();
    const blocker = t.shoot({ url: `${PAGE}slow` }, {
      headers: { "X-Forwarded-For": "192.0.2.1" },
    });
    await eventually(() => t.capture.jobs.length === 1, "the blocker holds the slot", {
      intervalMs: 0,
    });
    await using mcp = await mcpSession(t.app, { "X-Forwarded-For": "203.0.113.8" });
    for (let i = 0; i < 3; i++) {
      const full = await mcp.call("capture_screenshot", { url: `${PAGE}${i}` });
      await assertToolError(t.app, full, 503, "upstream_unavailable");
    }
    t.capture.release();
    await (await blocker).body?.cancel();
    for (let i = 0; i < 2; i++) {
      const taken = await mcp.call("capture_screenshot", { url: PAGE });
      assert.notEqual(taken.isError, true, textsOf(taken).join());
    }
    await assertToolError(
      t.app,
      await mcp.call("capture_screenshot", { url: PAGE }),
      429,
      "rate_limited",
    );
  } finally {
    await t.close();
  }
});

/** A capturer whose every render is one tall solid PNG: past the 8000 px side clients take. */
function tallCapturer(): Capturer {
  return {
    ...solidCapturer(),
    capture: () =>
      Promise.resolve({
        image: solidPng(1000, 9000, [20, 120, 220]),
        format: "png",
        strategy: "test-tall",
        targetStatus: 200,
      }),
  };
}

Deno.test("a capture taller than clients take comes back scaled, and the text says how to get it whole", async () => {
  const t = await createCaptureApp({ deps: { capture: tallCapturer() } });
  try {
    await using mcp = await mcpSession(t.app);
    const result = await mcp.call("capture_screenshot", {
      url: PAGE,
      fullPage: true,
      view: "full",
    });
    const { mimeType, bytes } = imageOf(result);
    assert.equal(mimeType, "image/png");
    assert.deepEqual(pngSize(bytes), { width: 888, height: 8000 });
    const [json, note] = textsOf(result);
    const body = JSON.parse(json);
    assert.deepEqual([body.width, body.height], [1000, 9000], "the capture's own size");
    assert.deepEqual([body.scaled.width, body.scaled.height], [888, 8000]);
    assert.equal(body.scaled.contentType, "image/png");
    assert.match(note, /^Scaled down: the image is 1000x9000, /);
    assert.match(note, /8000 px a side/);
    assert.ok(note.includes(`POST ${mcp.base}/api/screenshot with the same arguments`), note);
  } finally {
    await t.close();
  }
});

Deno.test("tool calls are counted by tool and outcome, logged with the route's line, not as HTTP requests", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const metrics = async () => await METRICS.registry.metrics();
    const count = (text: string, outcome: string) =>
      sampleValue(text, "shotline_mcp_calls_total", { tool: "capture_screenshot", outcome });
    const routeCount = (text: string) =>
      sampleValue(text, "shotline_http_requests_total", { route: "/api/screenshot" });
    const before = await metrics();
    await mcp.call("capture_screenshot", { url: PAGE });
    await mcp.call("capture_screenshot", { url: "ftp://example.com/" });
    const after = await metrics();
    assert.equal(count(after, "ok") - count(before, "ok"), 1);
    assert.equal(count(after, "invalid_url") - count(before, "invalid_url"), 1);
    assert.equal(routeCount(after), routeCount(before), "the in-process requests are not HTTP");

    const inner = t.log.lines.filter((l) => l.path === "/api/screenshot");
    assert.deepEqual(inner.map((l) => [l.status, l.via, l.tool]), [
      [200, "mcp", "capture_screenshot"],
      [400, "mcp", "capture_screenshot"],
    ]);
    const outer = t.log.lines.filter((l) => l.path === "/mcp" && l.tools);
    assert.equal(outer.length, 2);
    assert.deepEqual(outer.map((l) => l.requestId), inner.map((l) => l.requestId));
    assert.deepEqual(outer[0].tools, ["capture_screenshot"]);
  } finally {
    await t.close();
  }
});
