/**
 * The job tools over /mcp with this instance's worker and a solid-colour capturer:
 * start_capture_job answers the accepted job at once, get_capture_job with waitSeconds answers
 * the finished job compactly with a resource_link per done file, and failures are the HTTP
 * routes' envelopes.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { METRICS } from "../../lib/telemetry/metrics.ts";
import { createJobsApp } from "../../testing/jobs_app.ts";
import { sampleValue } from "../../testing/prometheus.ts";
import { eventually } from "../../testing/wait.ts";
import { assertToolError, mcpSession, textsOf } from "../../testing/mcp.ts";

type Schema = Record<string, unknown> & {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

/** Structured content valid against the tool's outputSchema, and the same as its JSON text. */
async function assertStructured(
  client: { listTools(): Promise<{ tools: { name: string; outputSchema?: object }[] }> },
  name: string,
  result: CallToolResult,
) {
  assert.notEqual(result.isError, true, textsOf(result).join("\n"));
  const { tools } = await client.listTools();
  const ajv = new Ajv2020({ strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(tools.find((t) => t.name === name)!.outputSchema!);
  assert.ok(validate(result.structuredContent), JSON.stringify(validate.errors));
  assert.deepEqual(JSON.parse(textsOf(result)[0]), result.structuredContent);
}

Deno.test("tools/list gives start_capture_job and get_capture_job with the job operations' schemas", async () => {
  await using t = await createJobsApp({ worker: false });
  await using mcp = await mcpSession(t.app);
  const { tools } = await mcp.client.listTools();
  const start = tools.find((tool) => tool.name === "start_capture_job");
  const get = tools.find((tool) => tool.name === "get_capture_job");
  assert.ok(start && get, "both tools");

  const input = start.inputSchema as Schema;
  assert.deepEqual(Object.keys(input.properties!), ["requests", "defaults", "webhook"]);
  assert.deepEqual(input.required, ["requests"]);
  const requests = input.properties!.requests as Schema & { items: Schema };
  assert.equal(requests.maxItems, 100);
  assert.equal(requests.minItems, 1);
  assert.ok(requests.items.properties?.url, "each request is the capture's body");
  assert.equal(start.annotations?.readOnlyHint, false);
  assert.equal(start.annotations?.destructiveHint, false);
  assert.match(start.description ?? "", /get_capture_job/);
  assert.deepEqual(Object.keys(start.outputSchema?.properties ?? {}), [
    "id",
    "status",
    "total",
    "expiresAt",
    "links",
  ]);

  const getInput = get.inputSchema as Schema;
  assert.deepEqual(getInput.required, ["id"]);
  assert.equal(getInput.properties!.waitSeconds.maximum, 60);
  assert.equal(get.annotations?.readOnlyHint, true);
  const item = (get.outputSchema?.properties?.items as { items: Schema }).items;
  assert.ok(item.properties?.imageUrl && item.properties?.error, "compact items");
  assert.equal(item.properties?.report, undefined, "no capture report per item");
  assert.equal(JSON.stringify(tools).includes("$ref"), false);
});

Deno.test("start_capture_job answers at once; get_capture_job with waitSeconds answers the done job with links", async () => {
  await using t = await createJobsApp();
  await using mcp = await mcpSession(t.app);
  const started = await mcp.call("start_capture_job", {
    requests: [{ url: "https://example.com/a" }, { url: "https://example.com/b", format: "jpeg" }],
    defaults: { deviceType: "mobile" },
  });
  await assertStructured(mcp.client, "start_capture_job", started);
  const accepted = started.structuredContent as { id: string; status: string; total: number };
  assert.match(accepted.id, /^job_[0-9a-f]{32}$/);
  assert.equal(accepted.status, "queued");
  assert.equal(accepted.total, 2);
  assert.match(textsOf(started)[1], new RegExp(`get_capture_job with \\{"id":"${accepted.id}"\\}`));

  const result = await mcp.call("get_capture_job", { id: accepted.id, waitSeconds: 60 });
  await assertStructured(mcp.client, "get_capture_job", result);
  const job = result.structuredContent as {
    status: string;
    counts: Record<string, number>;
    items: Array<Record<string, unknown>>;
  };
  assert.equal(job.status, "done");
  assert.equal(job.counts.done, 2);
  assert.deepEqual(job.items.map((item) => item.status), ["done", "done"]);
  assert.equal(job.items[1].contentType, "image/jpeg");
  assert.match(textsOf(result)[1], /is done: 2 done, 0 failed, 0 cancelled of 2/);
  assert.equal(result.content.some((item) => item.type === "image"), false, "no bytes inline");

  const links = result.content.flatMap((item) => item.type === "resource_link" ? [item] : []);
  assert.deepEqual(links.map((link) => link.mimeType), ["image/png", "image/jpeg"]);
  for (const [n, link] of links.entries()) {
    assert.equal(link.uri, `${mcp.base}/api/jobs/${accepted.id}/items/${n}`);
    assert.equal(link.size, job.items[n].bytes);
    // The link is plain HTTP with no session: what an agent fetches.
    const res = await fetch(link.uri);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), link.mimeType);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(bytes.byteLength, link.size);
    if (n === 0) assert.deepEqual([...bytes.subarray(0, 4)], PNG_SIGNATURE);
  }
  // The same job over HTTP.
  const view = await t.job(accepted.id);
  assert.equal(view.items[0].result?.imageUrl, job.items[0].imageUrl);
});

Deno.test("get_capture_job without waiting answers the job as it stands, and says to call again", async () => {
  await using t = await createJobsApp({ worker: false });
  await using mcp = await mcpSession(t.app);
  const started = await mcp.call("start_capture_job", {
    requests: [{ url: "https://example.com/a" }],
  });
  const { id } = started.structuredContent as { id: string };
  const result = await mcp.call("get_capture_job", { id });
  await assertStructured(mcp.client, "get_capture_job", result);
  const job = result.structuredContent as { status: string; items: Array<{ status: string }> };
  assert.equal(job.status, "queued");
  assert.deepEqual(job.items, [{ index: 0, status: "queued" }]);
  assert.match(textsOf(result)[1], /Call get_capture_job again/);
  assert.equal(result.content.some((item) => item.type === "resource_link"), false);
});

Deno.test("the job tools answer the routes' envelopes: a bad request by index, no such job, a bad wait", async () => {
  await using t = await createJobsApp({ worker: false, env: { ALLOW_PRIVATE_NETWORK: "false" } });
  await using mcp = await mcpSession(t.app);
  const refused = await mcp.call("start_capture_job", {
    requests: [{ url: "https://example.com" }, { url: "http://127.0.0.1:9/" }],
  });
  const envelope = await assertToolError(t.app, refused, 400, "invalid_url");
  assert.match(String(envelope.message), /^requests\[1\]: /);
  const empty = await mcp.call("start_capture_job", { requests: [] });
  await assertToolError(t.app, empty, 400, "invalid_request");

  const missing = await mcp.call("get_capture_job", { id: `job_${"0".repeat(32)}` });
  await assertToolError(t.app, missing, 404, "not_found");
  const tooLong = await mcp.call("get_capture_job", {
    id: `job_${"0".repeat(32)}`,
    waitSeconds: 61,
  });
  const wait = await assertToolError(t.app, tooLong, 400, "invalid_request");
  assert.match(String(wait.message), /^waitSeconds: /);
});

Deno.test("job items submitted over MCP count against the caller's per-IP cap, as over HTTP", async () => {
  await using t = await createJobsApp({
    worker: false,
    env: { JOB_MAX_QUEUED_PER_IP: "2", TRUST_PROXY_HOPS: "1" },
  });
  await using mcp = await mcpSession(t.app, { "X-Forwarded-For": "198.51.100.7" });
  const two = { requests: [{ url: "https://example.com/1" }, { url: "https://example.com/2" }] };
  const first = await t.submit(two, { "X-Forwarded-For": "198.51.100.7" });
  assert.equal(first.status, 202);
  await first.body?.cancel();
  const refused = await mcp.call("start_capture_job", two);
  const envelope = await assertToolError(t.app, refused, 429, "rate_limited");
  assert.match(String(envelope.message), /2 job items waiting/);
  // Another client, over MCP, is not concerned.
  const other = await mcp.connect({ "X-Forwarded-For": "203.0.113.9" });
  const accepted = await mcp.call("start_capture_job", two, other);
  assert.notEqual(accepted.isError, true, textsOf(accepted).join("\n"));
});

Deno.test("a client that goes away ends get_capture_job's wait: the call counts as aborted", async () => {
  await using t = await createJobsApp({ worker: false });
  await using mcp = await mcpSession(t.app);
  const started = await mcp.call("start_capture_job", {
    requests: [{ url: "https://example.com" }],
  });
  const { id } = started.structuredContent as { id: string };
  const aborted = async () =>
    sampleValue(await METRICS.registry.metrics(), "shotline_mcp_calls_total", {
      tool: "get_capture_job",
      outcome: "aborted",
    });
  const before = await aborted();
  // The SDK client's own cancel leaves its POST open: the client going away closes it.
  const client = new AbortController();
  const call = fetch(`${mcp.base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      // Nothing runs the job (no worker): only the client can end this wait before its 60 s.
      params: { name: "get_capture_job", arguments: { id, waitSeconds: 60 } },
    }),
    signal: client.signal,
  });
  const polls = () => t.log.lines.filter((l) => l.path === `/api/jobs/${id}` && l.via === "mcp");
  await eventually(() => polls().length > 0, "the wait to read the job");
  client.abort();
  await assert.rejects(call);
  await eventually(async () => await aborted() === before + 1, "the call to end as aborted");
});
