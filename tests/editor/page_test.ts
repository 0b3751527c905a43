import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { EDITOR_CSP } from "../../routes/editor.ts";
import { assertEnvelope } from "../helpers/envelope.ts";
import { createTestApp } from "../helpers/app.ts";

const EXPECTED_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

const sourceOf = (name: string) =>
  Deno.readTextFile(new URL(`../../lib/editor/${name}`, import.meta.url));

async function editorHtml(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request("/");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/html; charset=UTF-8");
  return { res, html: await res.text() };
}

Deno.test("GET / is the editor page with a strict CSP, no inline code and no third party", async () => {
  const t = await createTestApp();
  try {
    const { res, html } = await editorHtml(t.app);
    assert.equal(res.headers.get("content-security-policy"), EXPECTED_CSP);
    assert.equal(EDITOR_CSP, EXPECTED_CSP);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("vary"), "Accept");
    assert.match(res.headers.get("link") ?? "", /<\/openapi\.json>; rel="service-desc"/);
    assert.match(res.headers.get("link") ?? "", /<\/>; rel="alternate"; type="text\/markdown"/);
    assert.match(html, /^<!doctype html>/);
    // Exactly one script, external and a module; no inline script, style block or attribute.
    const scripts = html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
    assert.equal(scripts.length, 1);
    assert.match(
      scripts[0],
      /^<script type="module" src="\/assets\/editor\.[0-9a-f]{12}\.js"><\/script>$/,
    );
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=|javascript:/i);
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, "everything loads from this origin");
    for (const form of ["capture-form", "post-form", "frame-form", "export-form"]) {
      assert.ok(html.includes(`<form id="${form}">`), form);
    }
  } finally {
    await t.close();
  }
});

Deno.test("every control of the page has a label, and every id the script uses exists", async () => {
  const t = await createTestApp();
  try {
    const { html } = await editorHtml(t.app);
    const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
    const labelled = new Set([...html.matchAll(/<label\s[^>]*\bfor="([^"]+)"/g)].map((m) => m[1]));
    const controls = [...html.matchAll(/<(input|select)\b[^>]*\sid="([^"]+)"/g)];
    assert.ok(controls.length >= 15, `${controls.length} controls`);
    for (const [tag, , id] of controls) {
      // A checkbox may sit inside its label instead.
      const wrapped = new RegExp(`<label[^>]*>\\s*<input[^>]*id="${id}"`).test(html);
      assert.ok(labelled.has(id) || wrapped, `${tag} is labelled`);
    }
    const script = await sourceOf("editor.js");
    const used = [...script.matchAll(/byId\("([^"]+)"/g)].map((m) => m[1]);
    assert.ok(used.length > 10);
    for (const id of used) assert.ok(ids.has(id), `#${id} exists in the page`);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(html, /<html lang="en">/);
  } finally {
    await t.close();
  }
});

Deno.test("the script and stylesheet are served at content-hashed URLs, cached immutably", async () => {
  const t = await createTestApp();
  try {
    const { html } = await editorHtml(t.app);
    const assets: Array<[string, string, RegExp]> = [
      ["editor.js", /src="(\/assets\/editor\.[0-9a-f]+\.js)"/, /^text\/javascript; charset=utf-8$/],
      ["editor.css", /href="(\/assets\/editor\.[0-9a-f]+\.css)"/, /^text\/css; charset=utf-8$/],
    ].map((
      [file, pattern, type],
    ) => [file as string, html.match(pattern as RegExp)![1], type as RegExp]);
    for (const [file, path, type] of assets) {
      const res = await t.app.request(path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get("content-type") ?? "", type);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      const body = await res.text();
      const source = await sourceOf(file);
      assert.equal(body, source, `${path} serves lib/editor/${file}`);
      const hash = createHash("sha256").update(source).digest("hex").slice(0, 12);
      assert.ok(path.includes(`.${hash}.`), "the URL changes whenever the content does");
    }
    // A stale or made-up hash is not served (an old page would otherwise cache new bytes).
    const stale = await t.app.request("/assets/editor.000000000000.js");
    await assertEnvelope(t.app, stale, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("Accept: text/markdown on / still answers the llms.txt overview", async () => {
  const t = await createTestApp();
  try {
    const overview = await (await t.app.request("/llms.txt")).text();
    const res = await t.app.request("/", { headers: { Accept: "text/markdown" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(res.headers.get("vary"), "Accept");
    assert.match(res.headers.get("link") ?? "", /<\/openapi\.json>; rel="service-desc"/);
    assert.equal(await res.text(), overview);
    const html = await t.app.request("/", {
      headers: { Accept: "text/markdown;q=0.5, text/html" },
    });
    assert.match(html.headers.get("content-type") ?? "", /^text\/html/);
    await html.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("/ answers only GET and HEAD: other methods get 405 with Allow", async () => {
  const t = await createTestApp();
  try {
    const head = await t.app.request("/", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.match(head.headers.get("content-type") ?? "", /^text\/html/);
    await head.body?.cancel();
    const post = await t.app.request("/", { method: "POST" });
    assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
    await assertEnvelope(t.app, post, 405, "method_not_allowed");
  } finally {
    await t.close();
  }
});
