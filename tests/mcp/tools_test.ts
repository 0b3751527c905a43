/**
 * /mcp as a protocol endpoint: the tools and their input schemas (the HTTP operations' own), the
 * JSON-RPC errors of malformed messages, batches, the methods it refuses and its body limit.
 */
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ScreenshotRequestSchema } from "../../routes/screenshot_schemas.ts";
import { VIEW_ARGUMENT_NAMES } from "../../lib/mcp/view_arguments.ts";
import { EXPORT_FORMATS, QUALITY_PRESETS } from "../../lib/codecs/presets.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { mcpSession } from "../../testing/mcp.ts";

/** Every tool, in the order tools/list gives them. */
const TOOL_NAMES = [
  "capture_screenshot",
  "read_page",
  "start_capture_job",
  "get_capture_job",
  "get_post",
  "export_image",
];

type Schema = Record<string, unknown> & {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
};

/** A JSON-RPC POST to /mcp as any client sends it. */
function rpc(base: string, body: string) {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  });
}

Deno.test("tools/list gives the six tools; capture_screenshot takes the capture operation's request schema and the view", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), TOOL_NAMES);
    const [capture, , , , post, exporter] = tools.map((tool) => tool.inputSchema as Schema);

    // The same fields, required ones and constraints as the zod schema that validates the route,
    // then the view's own arguments.
    const zodSchema = z.toJSONSchema(ScreenshotRequestSchema, { io: "input" }) as Schema;
    assert.deepEqual(Object.keys(capture.properties!), [
      ...Object.keys(zodSchema.properties!),
      ...VIEW_ARGUMENT_NAMES,
    ]);
    assert.deepEqual(capture.required, zodSchema.required);
    for (const [name, field] of Object.entries(zodSchema.properties!)) {
      for (const keyword of ["enum", "default", "minimum", "maximum", "maxLength", "maxItems"]) {
        // zod states the bound of every integer; OpenAPI leaves the safe-integer one out.
        if (!(keyword in field) || field[keyword] === Number.MAX_SAFE_INTEGER) continue;
        assert.deepEqual(capture.properties![name][keyword], field[keyword], `${name} ${keyword}`);
      }
    }
    // With the descriptions and examples of /openapi.json, and no reference left to resolve.
    const document = await (await t.app.request("/openapi.json")).json();
    const published = document.components.schemas.ScreenshotRequest.properties;
    for (const [name, field] of Object.entries(published) as [string, Schema][]) {
      assert.equal(capture.properties![name].description, field.description, name);
    }
    assert.equal(JSON.stringify(tools).includes("$ref"), false);

    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const validCapture = ajv.compile(capture);
    assert.equal(validCapture({ url: "https://example.com", scale: 2, fullPage: true }), true);
    assert.equal(validCapture({ url: "https://example.com", deviceType: "tablet" }), false);

    assert.deepEqual(post.required, ["id"]);
    assert.equal(post.properties!.id.pattern, "^[0-9]+$");
    assert.deepEqual(exporter.properties!.image.contentEncoding, "base64");
    assert.deepEqual(exporter.properties!.format.enum, [...EXPORT_FORMATS]);
    assert.deepEqual(exporter.properties!.qualityPreset.enum, [...QUALITY_PRESETS]);
    assert.deepEqual(exporter.required, ["image", "format", "qualityPreset"]);
    // Only start_capture_job writes anything (a new job; nothing is overwritten or deleted).
    for (const tool of tools) {
      const writes = tool.name === "start_capture_job";
      assert.equal(tool.annotations?.readOnlyHint, !writes, tool.name);
      assert.notEqual(tool.annotations?.destructiveHint, true, tool.name);
    }
    assert.equal(mcp.client.getServerVersion()?.name, "shotline");
    assert.match(mcp.client.getInstructions() ?? "", /isError/);
  } finally {
    await t.close();
  }
});

Deno.test("malformed JSON-RPC gets the protocol's errors, an unknown tool too", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    for (const body of ["{not json", '{"jsonrpc":"2.0","method":7}']) {
      const res = await rpc(mcp.base, body);
      assert.equal(res.status, 400, body);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const answer = await res.json();
      assert.equal(answer.jsonrpc, "2.0");
      assert.equal(answer.error.code, ErrorCode.ParseError, body);
    }
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    const refusals: Array<[Record<string, string>, number]> = [
      [{ "content-type": "application/json", accept: "text/html" }, 406],
      [{ "content-type": "text/plain", accept: "application/json" }, 415],
    ];
    for (const [headers, status] of refusals) {
      const res = await fetch(`${mcp.base}/mcp`, { method: "POST", headers, body: list });
      assert.equal(res.status, status);
      assert.equal((await res.json()).jsonrpc, "2.0", "the protocol's error body");
    }
    const unknownMethod = await rpc(mcp.base, '{"jsonrpc":"2.0","id":3,"method":"nope/nothing"}');
    assert.equal(unknownMethod.status, 200);
    const answer = await unknownMethod.json();
    assert.deepEqual([answer.id, answer.error.code], [3, ErrorCode.MethodNotFound]);

    await assert.rejects(
      mcp.call("delete_everything", {}),
      (error: unknown) => error instanceof McpError && error.code === ErrorCode.InvalidParams,
    );
  } finally {
    await t.close();
  }
});

Deno.test("a batch gets one answer per request, with no session to keep", async () => {
  const t = await createCaptureApp();
  try {
    await using mcp = await mcpSession(t.app);
    const res = await rpc(
      mcp.base,
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "capture_screenshot", arguments: { url: "file:///etc/passwd" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ]),
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(res.headers.get("mcp-session-id"), null, "stateless: no session");
    const answers = await res.json();
    assert.deepEqual(answers.map((a: { id: number }) => a.id), [1, 2]);
    assert.equal(answers[0].result.tools.length, TOOL_NAMES.length);
    assert.equal(answers[1].result.isError, true);
    assert.equal(JSON.parse(answers[1].result.content[0].text).code, "invalid_url");
  } finally {
    await t.close();
  }
});

Deno.test("GET and DELETE /mcp are 405 naming POST; OPTIONS lists it", async () => {
  const t = await createCaptureApp();
  try {
    for (const method of ["GET", "DELETE"]) {
      const res = await t.app.request("/mcp", { method, headers: { accept: "text/event-stream" } });
      await assertEnvelope(t.app, res, 405, "method_not_allowed");
      assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    }
    const options = await t.app.request("/mcp", { method: "OPTIONS" });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "POST, OPTIONS");
  } finally {
    await t.close();
  }
});

Deno.test("an /mcp body past a base64 upload of MAX_UPLOAD_BYTES is refused with 413", async () => {
  const t = await createCaptureApp({ env: { MAX_UPLOAD_BYTES: "3000" } });
  try {
    // 3000 bytes are 4000 of base64; the JSON-RPC around them gets 64 KiB.
    const limit = 4000 + 64 * 1024;
    const message = (size: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/initialized",
        params: { pad: "x".repeat(size) },
      });
    const over = await t.app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: message(limit),
    });
    const envelope = await assertEnvelope(t.app, over, 413, "invalid_request");
    assert.match(String(envelope.hint), new RegExp(`at most ${limit} bytes`));
    const under = await t.app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: message(limit - 200),
    });
    assert.equal(under.status, 202, "a notification within the limit is accepted");
    await under.body?.cancel();
  } finally {
    await t.close();
  }
});
