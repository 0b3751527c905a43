/**
 * /mcp at the current MCP revision: the latest revision the SDK speaks is negotiated, every tool
 * publishes an outputSchema, an unsupported MCP-Protocol-Version is a 400, and a browser page
 * of another origin (DNS rebinding) is refused with 403 unless the operator allowed it.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { mcpSession } from "../../testing/mcp.ts";

type CaptureApp = Awaited<ReturnType<typeof createCaptureApp>>;

function post(t: CaptureApp, body: unknown, headers: Record<string, string> = {}) {
  return t.app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };

Deno.test("initialize negotiates the latest revision; every tool has an outputSchema; resources are offered", async () => {
  const t = await createCaptureApp();
  try {
    const res = await post(t, initialize(LATEST_PROTOCOL_VERSION));
    const { result } = await res.json();
    assert.equal(result.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.ok(result.capabilities.resources, "resources capability");
    await using mcp = await mcpSession(t.app);
    const { tools } = await mcp.client.listTools();
    assert.equal(tools.length, 6);
    for (const tool of tools) assert.equal(tool.outputSchema?.type, "object", tool.name);
  } finally {
    await t.close();
  }
});

Deno.test("an unsupported MCP-Protocol-Version is a 400 with the protocol's error", async () => {
  const t = await createCaptureApp();
  try {
    const res = await post(t, list, { "mcp-protocol-version": "2019-01-01" });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /unsupported MCP-Protocol-Version "2019-01-01"/);
    const ok = await post(t, list, { "mcp-protocol-version": LATEST_PROTOCOL_VERSION });
    assert.equal(ok.status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("a request from another origin is refused with 403; the service's own and listed origins pass", async () => {
  const t = await createCaptureApp({
    env: {
      PUBLIC_BASE_URL: "https://shots.example",
      MCP_ALLOWED_ORIGINS: "https://agent.example, http://localhost:6274",
    },
  });
  try {
    const rebound = await post(t, list, { origin: "http://evil.example:8000" });
    assert.equal(rebound.status, 403);
    const body = await rebound.json();
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /MCP_ALLOWED_ORIGINS/);
    assert.equal((await post(t, list, { origin: "null" })).status, 403);
    for (
      const origin of ["https://shots.example", "https://agent.example", "http://localhost:6274"]
    ) {
      assert.equal((await post(t, list, { origin })).status, 200, origin);
    }
    // Clients that are not browsers send no Origin.
    assert.equal((await post(t, list)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("without PUBLIC_BASE_URL a page's Origin is refused even when it names the Host itself", async () => {
  const t = await createCaptureApp();
  try {
    const res = await post(t, list, { origin: "http://localhost", host: "localhost" });
    assert.equal(res.status, 403);
    const any = await createCaptureApp({ env: { MCP_ALLOWED_ORIGINS: "*" } });
    try {
      assert.equal((await post(any, list, { origin: "http://evil.example" })).status, 200);
    } finally {
      await any.close();
    }
  } finally {
    await t.close();
  }
});
