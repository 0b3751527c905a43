/**
 * capture_screenshot and read_page over /mcp with the SDK's client on the real app (Chromium
 * behind the egress boundary) and loopback pages: the image item decodes to the page's pixels, a
 * consent wall is reported, and read_page gives an article's Markdown as the HTTP output does.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../testing/app.ts";
import { decodePng, servePages } from "../../testing/capture_fixtures.ts";
import { imageOf, mcpSession, textsOf } from "../../testing/mcp.ts";
import { solidPng } from "../../testing/icons.ts";
import { closedPort, findingRoutes } from "../../testing/finding_pages.ts";
import { ARTICLE_PAGE, articleMarkdown, CHROME_WORDS } from "../../testing/readable_pages.ts";

const PANEL_PAGE = `<!doctype html><html><head><meta name="viewport" content="width=device-width">
<style>html, body { margin: 0; height: 100%; background: #ffffff; }
@media (prefers-color-scheme: dark) { html, body { background: #000000; } }
#panel { position: absolute; left: 0; top: 0; width: 200px; height: 100px; background: #ff0000; }
</style></head><body><div id="panel"></div></body></html>`;

/** The real app with its Chromium, allowed to capture loopback pages. */
function browserApp() {
  return createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      CAPTURE_TIMEOUT_MS: "8000",
    },
  });
}

Deno.test("capture_screenshot renders a loopback page in Chromium; the image item holds its pixels", async () => {
  const pages = servePages({
    "/panel": () => new Response(PANEL_PAGE, { headers: { "content-type": "text/html" } }),
    "/favicon.ico": () =>
      new Response(solidPng(16, [255, 0, 0]), { headers: { "content-type": "image/png" } }),
  });
  const t = await browserApp();
  try {
    await using mcp = await mcpSession(t.app);
    const url = `${pages.origin}/panel`;
    const result = await mcp.call("capture_screenshot", {
      url,
      colorScheme: "dark",
      width: 800,
      height: 600,
    });
    // 800x600 is within what models read sharply: the capture itself, not tiles.
    const { mimeType, bytes } = imageOf(result);
    assert.equal(mimeType, "image/png");
    const image = decodePng(bytes);
    assert.deepEqual([image.width, image.height], [800, 600]);
    assert.deepEqual(image.rgb(100, 50), [255, 0, 0], "the red panel");
    assert.deepEqual(image.rgb(600, 400), [0, 0, 0], "the dark background");
    const body = JSON.parse(textsOf(result)[0]);
    assert.equal(body.url, url);
    assert.equal(body.httpStatus, 200);
    assert.deepEqual([body.width, body.height], [800, 600]);
    assert.equal(body.strategy, "chromium-local");
    // The page's icon is named; its bytes (there are some) are left out of the text.
    assert.equal(body.page.favicon, `${pages.origin}/favicon.ico`);
    assert.equal("faviconData" in body.page, false);
    assert.ok(pages.hits.get("/favicon.ico"), "the icon was loaded");
    assert.equal(pages.hits.get("/panel"), 1);
  } finally {
    await t.close();
    await pages.close();
  }
});

Deno.test("a consent wall's capture over MCP: the report in the structured content, its finding said in words", async () => {
  const pages = servePages(findingRoutes(closedPort()));
  const t = await browserApp();
  try {
    await using mcp = await mcpSession(t.app);
    // Listed first, the SDK's client checks the structured content against the outputSchema.
    await mcp.client.listTools();
    const result = await mcp.call("capture_screenshot", {
      url: `${pages.origin}/findings/consent-wall`,
    });
    assert.notEqual(result.isError, true, textsOf(result).join("\n"));
    const { report } = result.structuredContent as {
      report: { findings: { kind: string; hint: string }[]; timings: { total: number } };
    };
    assert.deepEqual(report.findings.map((f) => f.kind), ["consent_wall"]);
    assert.ok(report.timings.total > 0);
    const said = textsOf(result).find((text) => text.startsWith("The capture may not show"));
    assert.match(said ?? "", /- consent_wall: .*hideCookieBanners/);
  } finally {
    await t.close();
    await pages.close();
  }
});

Deno.test("read_page answers a real page's readable content as Markdown, the same as the HTTP output", async () => {
  const pages = servePages({
    "/articles/ferns.html": () =>
      new Response(ARTICLE_PAGE, { headers: { "content-type": "text/html" } }),
  });
  const t = await browserApp();
  try {
    await using mcp = await mcpSession(t.app);
    await mcp.client.listTools();
    const url = `${pages.origin}/articles/ferns.html`;
    const result = await mcp.call("read_page", { url });
    assert.notEqual(result.isError, true, textsOf(result).join("\n"));
    const [markdown] = textsOf(result);
    assert.equal(markdown, articleMarkdown(pages.origin));
    for (const word of CHROME_WORDS) assert.equal(markdown.includes(word), false, word);
    const facts = result.structuredContent as { format: string; cached: boolean; url: string };
    assert.deepEqual([facts.format, facts.cached, facts.url], ["markdown", false, url]);
    // The HTTP Markdown output is the same capture: a cache hit with the same text.
    const http = await t.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url, format: "markdown" }),
    });
    const body = await http.json();
    assert.equal(body.content, markdown);
    assert.equal(body.cached, true);
  } finally {
    await t.close();
    await pages.close();
  }
});
