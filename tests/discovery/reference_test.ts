import assert from "node:assert/strict";
import { ERROR_CODES } from "../../lib/errors.ts";
import { buildReference } from "../../lib/discovery/reference.ts";
import { mcpReferenceOf } from "../../lib/mcp/reference.ts";
import type { OpenApiDocument } from "../../lib/discovery/openapi_document.ts";
import { RATE_LIMIT_HEADERS, splitErrorDescription } from "../../lib/http/openapi_responses.ts";
import { MAX_REDIRECTS } from "../../lib/media/proxy.ts";
import { MEDIA_HOSTS } from "../../lib/upstreams.ts";
import { createTestApp } from "../../testing/app.ts";

type App = { request(path: string): Response | Promise<Response> };

async function textOf(app: App, path: string): Promise<string> {
  const res = await app.request(path);
  assert.equal(res.status, 200, path);
  return await res.text();
}

/** What a reader of the HTML sees: tags dropped, entities decoded, whitespace collapsed. */
function visibleText(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");
}

/** Compares texts regardless of layout: the HTML puts tags (so spaces) around code spans. */
const squash = (text: string) => text.replaceAll("`", "").replace(/\s+/g, "");

/** The three documents of a test app, and its reference model built from /openapi.json. */
async function documentsOf(env: Record<string, string> = {}) {
  const t = await createTestApp({ env });
  try {
    const document: OpenApiDocument = JSON.parse(await textOf(t.app, "/openapi.json"));
    return {
      document,
      reference: buildReference(
        document,
        "http://localhost",
        t.deps.config,
        mcpReferenceOf(document, "http://localhost"),
      ),
      llms: await textOf(t.app, "/llms.txt"),
      full: await textOf(t.app, "/llms-full.txt"),
      docs: await textOf(t.app, "/docs"),
    };
  } finally {
    await t.close();
  }
}

/** Asserts every operation of the app's /openapi.json is in the three other documents. */
async function assertEveryOperationListed(env: Record<string, string>, count: number) {
  const { document, llms, full, docs } = await documentsOf(env);
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op }))
  );
  assert.equal(operations.length, count);
  for (const { path, method, op } of operations) {
    const id = op.operationId;
    assert.ok(llms.includes(`[${method} ${path}](http://localhost/docs#op-${id})`), id);
    assert.ok(full.includes(`### ${method} ${path} (\`${id}\`)`), id);
    assert.ok(docs.includes(`<section class="op" id="op-${id}">`), id);
    assert.ok(docs.includes(`<h2><code>${method} ${path}</code></h2>`), id);
    for (const status of Object.keys(op.responses)) {
      assert.ok(full.includes(`- **${status}**`), `${id} ${status}`);
    }
  }
}

Deno.test("every operation of /openapi.json is in /llms.txt, /llms-full.txt and /docs", async () => {
  await assertEveryOperationListed({}, 16);
});

Deno.test("with RENDER_LINK_SECRET set, GET /api/render is one more operation everywhere", async () => {
  await assertEveryOperationListed({ RENDER_LINK_SECRET: "s".repeat(32) }, 17);
});

Deno.test("/llms-full.txt and /docs state every fact of the one reference model", async () => {
  const { reference, full, docs } = await documentsOf();
  const html = squash(visibleText(docs));
  const facts = [
    reference.summary,
    reference.overview,
    reference.envelope.intro,
    ...reference.limits,
    ...reference.operations.flatMap((op) => [
      op.summary,
      op.description,
      op.curl,
      ...op.parameters.flatMap((p) => [p.name, p.notes]),
      ...op.bodies.flatMap((b) => b.fields.flatMap((f) => [f.name, f.notes])),
      ...op.responses.map((r) => r.description),
      ...op.answers.flatMap((a) => a.fields.flatMap((f) => [f.name, f.notes])),
      ...op.callbacks.flatMap((c) => [
        c.summary,
        c.description,
        ...c.bodies.flatMap((b) => b.fields.flatMap((f) => [f.name, f.notes])),
        ...c.responses.map((r) => r.description),
      ]),
    ]),
    ...reference.errors.flatMap((e) => [e.code, e.meaning, e.hint]),
    ...reference.rateLimitHeaders.flatMap((h) => [h.name, h.description]),
  ].filter(Boolean);
  assert.ok(facts.length > 100, `${facts.length} facts`);
  for (const fact of facts) {
    // A fact in a Markdown table cell has its pipes escaped.
    const inCell = fact.replaceAll("|", "\\|");
    assert.ok(full.includes(fact) || full.includes(inCell), `llms-full: ${fact}`);
    assert.ok(html.includes(squash(fact)), `docs: ${fact}`);
  }
});

Deno.test("the capture's answer is listed field by field, its metadata, report and frame one level down", async () => {
  const { document, reference } = await documentsOf();
  const capture = reference.operations.find((op) => op.id === "captureScreenshot")!;
  const names = capture.answers.flatMap((a) => a.fields.map((f) => f.name));
  const schemas = document.components?.schemas ?? {};
  const answer = Object.keys(schemas.ScreenshotResponse?.properties ?? {});
  const page = Object.keys(schemas.PageMetadata?.properties ?? {}).map((name) => `page.${name}`);
  const report = Object.keys(schemas.CaptureReport?.properties ?? {}).map((name) =>
    `report.${name}`
  );
  const frame = Object.keys(schemas.ScreenshotResponse?.properties?.frame?.properties ?? {})
    .map((name) => `frame.${name}`);
  assert.ok(page.includes("page.faviconData"));
  assert.ok(report.includes("report.findings"));
  assert.ok(frame.includes("frame.image"));
  assert.deepEqual(new Set(names), new Set([...answer, ...page, ...report, ...frame]));
});

Deno.test("each error code a response names links to that code's entry", async () => {
  const { document, reference, full, docs } = await documentsOf();
  for (const op of reference.operations) {
    const published = document.paths[op.path][op.method.toLowerCase()].responses;
    for (const r of op.responses) {
      assert.deepEqual(
        r.codes.map((c) => c.code),
        splitErrorDescription(published[r.status].description).codes,
      );
      for (const { code, anchor } of r.codes) {
        assert.ok(full.includes(`[\`${code}\`](#${anchor})`), `${op.id} ${r.status} ${code}`);
        assert.ok(docs.includes(`<a href="#${anchor}"><code>${code}</code></a>`), code);
      }
    }
  }
  const capture = reference.operations.find((op) => op.id === "captureScreenshot");
  assert.deepEqual(
    capture?.responses.find((r) => r.status === "400")?.codes.map((c) => c.code),
    ["invalid_request", "invalid_url", "unsupported_value"],
  );
  for (const code of ERROR_CODES) {
    assert.ok(full.includes(`<a id="error-${code}"></a>`), code);
    assert.ok(docs.includes(`<h3 id="error-${code}">`), code);
  }
  const targets = new Set([...docs.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
  for (const [, anchor] of docs.matchAll(/href="#([^"]+)"/g)) {
    assert.ok(targets.has(anchor), anchor);
  }
  for (const [, anchor] of full.matchAll(/\]\(#([^)]+)\)/g)) {
    assert.ok(full.includes(`<a id="${anchor}"></a>`), anchor);
  }
});

Deno.test("error descriptions split into sentence and codes; anything else keeps its text", () => {
  assert.deepEqual(splitErrorDescription("Too slow. Codes: upstream_timeout, upstream_failed."), {
    when: "Too slow.",
    codes: ["upstream_timeout", "upstream_failed"],
  });
  assert.deepEqual(splitErrorDescription("The media file."), {
    when: "The media file.",
    codes: [],
  });
  assert.deepEqual(splitErrorDescription("Odd. Codes: no_such_code."), {
    when: "Odd. Codes: no_such_code.",
    codes: [],
  });
});

Deno.test("the media hosts and the redirect limit in the documents are the proxy's constants", async () => {
  const { full, docs, document } = await documentsOf();
  const hostsIn = (text: string) => {
    const list = /only https URLs on ([a-z., ]+) \(403 otherwise\)/.exec(text)?.[1];
    assert.ok(list, "the image-proxy limit lists the hosts");
    return list.split(/, | or /);
  };
  assert.deepEqual(hostsIn(full), [...MEDIA_HOSTS]);
  assert.deepEqual(hostsIn(visibleText(docs)), [...MEDIA_HOSTS]);
  const proxy = document.paths["/api/image-proxy"].get;
  assert.ok(proxy.description?.includes(`(${MEDIA_HOSTS.join(", ")})`));
  assert.ok(proxy.description?.includes(`(at most ${MAX_REDIRECTS})`));
  for (const text of [full, visibleText(docs)]) {
    assert.ok(text.includes(`redirects are followed at most ${MAX_REDIRECTS} times`));
    assert.ok(text.includes(`Only https URLs on ${MEDIA_HOSTS.slice(0, -1).join(", ")} and `));
  }
});

Deno.test("the rate-limit table lists RATE_LIMIT_HEADERS and the configured limit", async () => {
  const { full, docs } = await documentsOf({ RATE_LIMIT_PER_MINUTE: "7" });
  const rows = [...full.matchAll(/^\| `([A-Za-z-]+)` \| [^|]+ \| ([0-9, ]+) \|$/gm)];
  assert.deepEqual(rows.map((m) => m[1]), Object.keys(RATE_LIMIT_HEADERS.shape));
  assert.deepEqual(rows.map((m) => m[2]), ["429", "200, 429", "200, 429", "200, 429"]);
  for (const text of [full, visibleText(docs)]) {
    assert.ok(text.includes("at most 7 captures per client IP in a sliding 60 s window"));
    assert.ok(text.includes("(20 by default;"));
    assert.ok(text.includes("upload size (25 MiB; 413 past it)"));
  }
  for (const name of Object.keys(RATE_LIMIT_HEADERS.shape)) {
    assert.ok(docs.includes(`<td><code>${name}</code></td>`), name);
  }
});
