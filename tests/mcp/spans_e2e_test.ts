/**
 * Tool calls of the real process as traces (OTEL_DENO=true, OTLP/HTTP JSON to a loopback
 * receiver): an `mcp.tool` span per call under Deno's `POST /mcp` server span, the operation's own
 * spans nested in it, and the server span still named after /mcp.
 */
import assert from "node:assert/strict";
import { servePages } from "../../testing/capture_fixtures.ts";
import { eventually } from "../../testing/wait.ts";
import { startService } from "../../testing/service_process.ts";
import { connectMcp, imageOf } from "../../testing/mcp.ts";
import { startOtlpReceiver } from "../../testing/otlp_receiver.ts";

// Deno batches spans; they are exported within seconds, and at exit at the latest.
const EXPORT_WAIT_MS = 30_000;

Deno.test("each tool call is an mcp.tool span under POST /mcp, with its operation's spans inside", async () => {
  const receiver = startOtlpReceiver();
  const pages = servePages();
  const svc = await startService({
    KV_PATH: ":memory:",
    ALLOW_PRIVATE_NETWORK: "true",
    // No filter list from the internet: a closed loopback port.
    ADBLOCK_LIST_URLS: "http://127.0.0.1:9/easylist.txt",
    ANNOYANCE_LIST_URLS: "http://127.0.0.1:9/annoyances.txt",
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: "shotline-test",
  });
  try {
    const client = await connectMcp(`${svc.base}/mcp`);
    try {
      const shot = await client.callTool({
        name: "capture_screenshot",
        arguments: { url: pages.origin, view: "full" },
      });
      imageOf(shot as Parameters<typeof imageOf>[0]);
      const refused = await client.callTool({ name: "get_post", arguments: { id: "abc" } });
      assert.equal(refused.isError, true);
    } finally {
      await client.close();
    }

    const named = (name: string) => receiver.spans.filter((s) => s.name === name);
    await eventually(
      () => named("mcp.tool").length === 2 && named("capture").length === 1,
      `both tool spans and the capture arrive (have: ${[
        ...new Set(receiver.spans.map((s) => s.name)),
      ]})`,
      { timeoutMs: EXPORT_WAIT_MS },
    );
    const byTool = (tool: string) => named("mcp.tool").find((s) => s.attributes.tool === tool)!;
    const capture = byTool("capture_screenshot");
    assert.equal(capture.attributes.outcome, "ok");
    assert.equal(byTool("get_post").attributes.outcome, "invalid_request");
    assert.equal(named("capture")[0].parentSpanId, capture.spanId, "the capture runs in the tool");

    const servers = receiver.spans.filter((s) =>
      s.scope !== "shotline" && s.attributes["http.route"]
    );
    const parent = servers.find((s) => s.spanId === capture.parentSpanId);
    assert.ok(parent, "the tool span's parent is a server span");
    assert.equal(parent.name, "POST /mcp", "the in-process request did not rename it");
    assert.equal(parent.attributes["http.route"], "/mcp");
    assert.ok(!servers.some((s) => s.attributes["http.route"] === "/api/screenshot"));
  } finally {
    await svc.stop();
    await pages.close();
    await receiver.close();
  }
});
