import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_CODES } from "../../lib/errors.ts";
import { createTestApp } from "../../testing/app.ts";

/** The public operations, in the order of /openapi.json (the order the app mounts them). */
const PUBLIC_OPERATIONS: Record<string, [string, string]> = {
  captureScreenshot: ["post", "/api/screenshot"],
  captureScreenshotMethodProbe: ["get", "/api/screenshot"],
  submitCaptureJob: ["post", "/api/jobs"],
  getCaptureJob: ["get", "/api/jobs/{id}"],
  cancelCaptureJob: ["delete", "/api/jobs/{id}"],
  getCaptureJobItem: ["get", "/api/jobs/{id}/items/{n}"],
  getKeptCapture: ["get", "/api/captures/{id}"],
  optimizeExportImage: ["post", "/api/export"],
  optimizeExportImageMethodProbe: ["get", "/api/export"],
  frameImage: ["post", "/api/frame"],
  frameImageMethodProbe: ["get", "/api/frame"],
  getPost: ["get", "/api/post/{id}"],
  proxySocialImage: ["get", "/api/image-proxy"],
  getOpenApiSpec: ["get", "/openapi.json"],
  getLlmsTxt: ["get", "/llms.txt"],
  getLlmsFullTxt: ["get", "/llms-full.txt"],
};

async function openApiOf(app: { request(p: string): Response | Promise<Response> }) {
  const res = await app.request("/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

Deno.test("/openapi.json is a valid OpenAPI 3.1 document, version 1.0.0", async () => {
  const t = await createTestApp();
  try {
    const document = await openApiOf(t.app);
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(document.openapi, "3.1.0");
    assert.equal(document.info.version, "1.0.0");
    assert.deepEqual(document.security, []);
    assert.deepEqual(document.servers, [{ url: "http://localhost" }]);
    assert.ok(document.components.schemas.Error);
    assert.ok(document.components.schemas.RateLimitError);
  } finally {
    await t.close();
  }
});

Deno.test("operation ids are exactly the public operations, each on its method and path", async () => {
  const t = await createTestApp();
  try {
    const document = await openApiOf(t.app);
    const published: Record<string, [string, string]> = {};
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, { operationId: string }>)) {
        published[op.operationId] = [method, path];
      }
    }
    assert.deepEqual(published, PUBLIC_OPERATIONS);
    assert.ok(!JSON.stringify(document.paths).includes("/api/cache"), "admin endpoints hidden");
  } finally {
    await t.close();
  }
});

Deno.test("with RENDER_LINK_SECRET, renderLink follows the screenshot operations in a valid document", async () => {
  const t = await createTestApp({ env: { RENDER_LINK_SECRET: "s".repeat(32) } });
  try {
    const document = await openApiOf(t.app);
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId)
    );
    const published = Object.keys(PUBLIC_OPERATIONS);
    assert.deepEqual(ids, [...published.slice(0, 2), "renderLink", ...published.slice(2)]);
    const render = document.paths["/api/render"].get;
    assert.deepEqual(Object.keys(render.responses), [
      "200",
      "304",
      "400",
      "403",
      "408",
      "429",
      "500",
      "502",
      "503",
    ]);
    assert.deepEqual(Object.keys(render.responses["200"].content), [
      "image/png",
      "image/jpeg",
      "image/webp",
    ]);
    const required = render.parameters.filter((p: { required: boolean }) => p.required);
    assert.deepEqual(required.map((p: { name: string }) => p.name), ["expires", "signature"]);
    const names = render.parameters.map((p: { name: string }) => p.name);
    for (const refused of ["cookies", "headers", "forceRefresh"]) {
      assert.ok(!names.includes(refused), refused);
    }
  } finally {
    await t.close();
  }
});

Deno.test("servers follow PUBLIC_BASE_URL, else the request origin", async () => {
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: "https://shots.example/" } });
  const u = await createTestApp();
  try {
    assert.deepEqual((await openApiOf(t.app)).servers, [{ url: "https://shots.example" }]);
    const res = await u.app.request("https://api.other.test:8443/openapi.json");
    assert.deepEqual((await res.json()).servers, [{ url: "https://api.other.test:8443" }]);
  } finally {
    await t.close();
    await u.close();
  }
});

Deno.test("/llms.txt has the llmstxt.org shape with a curl example per operation", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/llms.txt");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
    const text = await res.text();
    const lines = text.split("\n");
    assert.match(lines[0], /^# \S/);
    assert.equal(lines[1], "");
    assert.match(lines[2], /^> \S/);
    assert.match(text, /^## Operations$/m);
    assert.match(text, /^## Reference$/m);
    const document = await openApiOf(t.app);
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item!));
    const curls = text.match(/^ {2}curl /gm) ?? [];
    assert.equal(curls.length, operations.length);
    assert.match(text, /\(http:\/\/localhost\/openapi\.json\)/);
  } finally {
    await t.close();
  }
});

Deno.test("/llms-full.txt covers operations, every error code with hints, and limits", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/llms-full.txt");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
    const text = await res.text();
    for (const code of ERROR_CODES) assert.match(text, new RegExp(`\`${code}\``), code);
    for (const header of ["Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining"]) {
      assert.match(text, new RegExp(header));
    }
    assert.match(text, /X-RateLimit-Reset` \| Unix epoch milliseconds/);
    assert.match(text, /### GET \/openapi\.json \(`getOpenApiSpec`\)/);
  } finally {
    await t.close();
  }
});

Deno.test("/docs is HTML with an anchor per error code, a strict CSP and discovery links", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/docs");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    assert.doesNotMatch(res.headers.get("content-security-policy") ?? "", /unsafe-inline/);
    assert.match(res.headers.get("link") ?? "", /<\/openapi\.json>; rel="service-desc"/);
    assert.match(res.headers.get("link") ?? "", /rel="alternate"; type="text\/markdown"/);
    assert.equal(res.headers.get("vary"), "Accept");
    const html = await res.text();
    for (const code of ERROR_CODES) assert.ok(html.includes(`id="error-${code}"`), code);
    assert.ok(html.includes(`id="op-getOpenApiSpec"`));
    assert.doesNotMatch(html, /<script|https?:\/\/(?!localhost)[a-z]+\.[a-z]+\/[a-z]*\.(js|css)/);
    const css = await t.app.request("/assets/site.css");
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
  } finally {
    await t.close();
  }
});

Deno.test("pages answer Markdown when Accept prefers it (q-values respected)", async () => {
  const t = await createTestApp();
  try {
    for (const path of ["/", "/docs"]) {
      const md = await t.app.request(path, { headers: { Accept: "text/markdown" } });
      assert.equal(md.status, 200);
      assert.equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(md.headers.get("vary"), "Accept");
      assert.match(await md.text(), /^# /);
      const html = await t.app.request(path, {
        headers: { Accept: "text/markdown;q=0.5, text/html" },
      });
      assert.match(html.headers.get("content-type") ?? "", /^text\/html/);
      await html.body?.cancel();
    }
    const llms = await t.app.request("/llms.txt", { headers: { Accept: "text/html" } });
    assert.equal(llms.headers.get("content-type"), "text/markdown; charset=utf-8");
    await llms.body?.cancel();
  } finally {
    await t.close();
  }
});
