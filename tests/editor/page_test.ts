import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { assetFolderHash, EDITOR_FONTS, EDITOR_MODULES } from "../../lib/editor/assets.ts";
import { EDITOR_CSP } from "../../routes/editor.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { createTestApp } from "../../testing/app.ts";

const EXPECTED_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

/** A served file's source: its path in the assets' folder is its path under lib/. */
const sourceOf = (name: string) => Deno.readTextFile(new URL(`../../lib/${name}`, import.meta.url));

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
      /^<script type="module" src="\/assets\/editor\.[0-9a-f]{12}\/editor\/editor\.js"><\/script>$/,
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
    assert.ok(controls.length >= 22, `${controls.length} controls`);
    // The capture options of the API, each under the name of its field.
    for (const name of ["fullPage", "scale", "hideCookieBanners", "blockAds"]) {
      assert.match(html, new RegExp(`<input type="(checkbox|radio)" id="[^"]+"\\s+name="${name}"`));
    }
    assert.deepEqual([...html.matchAll(/name="scale" value="(\d)"/g)].map((m) => m[1]), [
      "1",
      "2",
      "3",
    ]);
    for (const [tag, , id] of controls) {
      // A checkbox may sit inside its label instead.
      const wrapped = new RegExp(`<label[^>]*>\\s*<input[^>]*id="${id}"`).test(html);
      assert.ok(labelled.has(id) || wrapped, `${tag} is labelled`);
    }
    const script = Object.values(EDITOR_MODULES).join("\n");
    const used = [...script.matchAll(/byId\("([^"]+)"/g)].map((m) => m[1]);
    assert.ok(used.length > 30, `${used.length} ids`);
    for (const id of used) assert.ok(ids.has(id), `#${id} exists in the page`);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(html, /<html lang="en">/);
  } finally {
    await t.close();
  }
});

Deno.test("the capture card offers the page as a PDF, a recording or its text, in the API's terms", async () => {
  const t = await createTestApp();
  try {
    const { html } = await editorHtml(t.app);
    const form = html.slice(html.indexOf('<form id="capture-form">'), html.indexOf("</form>"));
    assert.match(form, /<legend>Take the page as<\/legend>/);
    assert.match(form, /<label for="take-format">Format<\/label>/);
    assert.match(form, /<button type="button" id="take-download" class="secondary">Download</);
    assert.match(form, /<p class="result" id="take-result" role="status"><\/p>/);
    const choices = [...form.matchAll(/<option value="([^"]+)" ([^>]*)>([^<]+)<\/option>/g)]
      .filter(([, , data]) => data.includes("data-accept"))
      .map(([, value, data, label]) => [value, label, data.replace(/\s+/g, " ").trim()]);
    assert.deepEqual(choices, [
      [
        "pdf-page",
        "PDF (one page)",
        'data-format="pdf" data-kind="pdf" data-accept="application/pdf" data-ext="pdf" ' +
        'data-one-page="true"',
      ],
      [
        "pdf-a4",
        "PDF (A4 pages)",
        'data-format="pdf" data-kind="pdf" data-accept="application/pdf" data-ext="pdf"',
      ],
      [
        "mp4",
        "MP4 video",
        'data-format="mp4" data-kind="video" data-accept="video/mp4" data-ext="mp4"',
      ],
      [
        "webm",
        "WebM video",
        'data-format="webm" data-kind="video" data-accept="video/webm" data-ext="webm"',
      ],
      ["gif", "GIF", 'data-format="gif" data-kind="video" data-accept="image/gif" data-ext="gif"'],
      [
        "markdown",
        "Markdown",
        'data-format="markdown" data-kind="text" data-accept="text/markdown" data-ext="md"',
      ],
      [
        "html",
        "HTML",
        'data-format="html" data-kind="text" data-accept="text/html" data-ext="html"',
      ],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("the modules, fonts and stylesheet are served at content-hashed URLs, cached immutably", async () => {
  const t = await createTestApp();
  try {
    const { html } = await editorHtml(t.app);
    const entry = html.match(/src="(\/assets\/editor\.([0-9a-f]{12})\/editor\/editor\.js)"/)!;
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) =>
      m[1]
    );
    const names = Object.keys(EDITOR_MODULES);
    // Every module the entry imports is preloaded, from the same hashed folder, which mirrors
    // lib/ (editor/ and frame/) so relative imports resolve alike on disk and when served.
    assert.deepEqual(
      [entry[1], ...preloaded],
      names.map((name) => `/assets/editor.${entry[2]}/${name}`),
    );
    assert.equal(entry[2], assetFolderHash(), "the folder changes whenever any file does");
    const stylesheet = html.match(/href="(\/assets\/editor\.([0-9a-f]+)\.css)"/)!;
    const css = await sourceOf("editor/editor.css");
    assert.equal(stylesheet[2], createHash("sha256").update(css).digest("hex").slice(0, 12));
    const served: Array<[string, string, RegExp]> = [
      ...names.map((name, i): [string, string, RegExp] => [
        name,
        [entry[1], ...preloaded][i],
        /^text\/javascript; charset=utf-8$/,
      ]),
      ["editor/editor.css", stylesheet[1], /^text\/css; charset=utf-8$/],
    ];
    for (const [file, path, type] of served) {
      const res = await t.app.request(path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get("content-type") ?? "", type);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(await res.text(), await sourceOf(file), `${path} serves lib/${file}`);
    }
    // The fonts the canvas lists are the renderer's, byte for byte, as font/woff.
    const fonts = html.match(/data-fonts="([^"]+)"/)![1].split(" ");
    assert.deepEqual(
      fonts,
      Object.keys(EDITOR_FONTS).map((name) => `/assets/editor.${entry[2]}/${name}`),
    );
    assert.equal(fonts.length, 7);
    for (const [i, bytes] of Object.values(EDITOR_FONTS).entries()) {
      const res = await t.app.request(fonts[i]);
      assert.equal(res.status, 200, fonts[i]);
      assert.equal(res.headers.get("content-type"), "font/woff");
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
    }
    // Every browser module is in the list the server embeds: an import missing from it would
    // 404. lib/frame's server-only files (TypeScript) are not served.
    const jsIn = (folder: string) =>
      [...Deno.readDirSync(new URL(`../../lib/${folder}/`, import.meta.url))]
        .map((entry) => `${folder}/${entry.name}`).filter((name) => name.endsWith(".js"));
    // Plus the one codec module the editor shares with the server (PNG chunks).
    const shared = ["codecs/png_chunk.js"];
    assert.deepEqual([...jsIn("editor"), ...jsIn("frame"), ...shared].sort(), [...names].sort());
    // A stale or made-up hash is not served (an old page would otherwise cache new bytes).
    const stale = await t.app.request("/assets/editor.000000000000/editor/editor.js");
    await assertEnvelope(t.app, stale, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("the image file picker states the configured upload limit", async () => {
  const t = await createTestApp({ env: { MAX_UPLOAD_BYTES: String(5 * 1024 * 1024) } });
  try {
    const { html } = await editorHtml(t.app);
    assert.match(html, /<label for="image-file">Image file \(PNG, JPEG or WebP, up to 5 MB\)/);
    assert.match(html, /accept="image\/png,image\/jpeg,image\/webp" data-max-bytes="5242880"/);
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
