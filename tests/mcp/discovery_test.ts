/**
 * /llms.txt, /llms-full.txt and /docs describe /mcp from the same tools tools/list gives: each
 * tool with the operation it runs (a section that exists) and how to add the endpoint to a client.
 */
import assert from "node:assert/strict";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { mcpSession } from "../../testing/mcp.ts";

async function text(app: { request(path: string): Response | Promise<Response> }, path: string) {
  const res = await app.request(path);
  assert.equal(res.status, 200, path);
  return { type: res.headers.get("content-type") ?? "", body: await res.text() };
}

Deno.test("the discovery documents describe /mcp and every tool tools/list gives", async () => {
  const t = await createCaptureApp({ env: { PUBLIC_BASE_URL: "https://shots.example" } });
  try {
    await using mcp = await mcpSession(t.app);
    const { tools } = await mcp.client.listTools();
    const llms = await text(t.app, "/llms.txt");
    const full = await text(t.app, "/llms-full.txt");
    const docs = await text(t.app, "/docs");
    assert.match(llms.type, /^text\/markdown/);
    assert.match(docs.type, /^text\/html/);
    for (const doc of [llms.body, full.body, docs.body]) {
      assert.ok(doc.includes("https://shots.example/mcp"), "the endpoint's public URL");
      assert.ok(doc.includes("claude mcp add --transport http shotline https://shots.example/mcp"));
      assert.ok(doc.includes("isError"), "how failures come back");
    }
    const sections = [...docs.body.matchAll(/<section class="op" id="([^"]+)"/g)].map((m) => m[1]);
    for (const tool of tools) {
      const line = llms.body.split("\n").find((l) => l.startsWith(`- \`${tool.name}\``));
      assert.ok(line, `${tool.name} in /llms.txt`);
      const anchor = line.match(/\/docs#([\w-]+)\)/)?.[1];
      assert.ok(anchor && sections.includes(anchor), `${tool.name} links its operation's section`);
      assert.ok(docs.body.includes(`href="#${anchor}"`), `${tool.name} links it in /docs`);
    }
    // The full reference lists each tool's arguments as tools/list gives them.
    const capture = tools.find((tool) => tool.name === "capture_screenshot")!;
    const fullLine = full.body.split("\n").find((l) => l.startsWith("- `capture_screenshot`"))!;
    for (const name of Object.keys(capture.inputSchema.properties ?? {})) {
      assert.ok(fullLine.includes(`\`${name}\` (`), `argument ${name}`);
    }
    assert.match(docs.body, /<h3 id="mcp-setup">Add Shotline to an MCP client<\/h3>/);
  } finally {
    await t.close();
  }
});
