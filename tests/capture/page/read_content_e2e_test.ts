/**
 * readContent end to end in Debian's Chromium on loopback pages: the Markdown of an article
 * without its site's chrome, content that scripts wrote, non-ASCII text, the HTML of the rendered
 * DOM without scripts, a page that tampers with built-ins, the size cap and a page too busy to be
 * read; the live page is never changed by a reading.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "puppeteer-core";
import { MAX_CONTENT_BYTES, readContent } from "../../../lib/capture/page/read_content.ts";
import { PageFailure } from "../../../lib/capture/page/page_failure.ts";
import { html, type PageServer, servePages } from "../../../testing/capture_fixtures.ts";
import { launchChromium } from "../../../testing/editor_browser.ts";
import { ARTICLE_PAGE, articleMarkdown, CHROME_WORDS } from "../../../testing/readable_pages.ts";

// Generous: two busy cores must not fail a reading; the budget's end is tested on its own.
const READ_MS = 10_000;

const HEAD = `<meta charset="utf-8"><title>Acme widgets</title>`;

// A landing page: no article for Readability, chrome around it, a cookie bar fixed at the bottom.
const LANDING = `<!doctype html><html><head>${HEAD}
<style>.notice { position: fixed; bottom: 0; }</style></head><body>
<nav><a href="/a">Pricingzebra</a></nav>
<h1>Acme widgets</h1><p>Fast widgets for <a href="/shop">every</a> shelf.</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/lazy.png" alt="Shelf">
<footer>Copyrightmarmot</footer>
<div class="notice">This site uses cookies: Cookiepangolin <a href="/policy">policy</a></div>
</body></html>`;

// The article is written by a script once the page has loaded.
const SCRIPTED = `<!doctype html><html><head>${HEAD}</head><body><main id="app"></main>
<script>addEventListener("load", () => {
  document.getElementById("app").innerHTML =
    "<h1>Written later</h1><p id='done' onclick='alert(1)'>Scripts wrote this " +
    "<a href=' javascript:alert(2)'>paragraph</a>.</p>";
});</script></body></html>`;

const UNICODE = `<!doctype html><html lang="ja"><head>${HEAD.replace("Acme widgets", "Über Farne")}
</head><body><h1>Über Farne</h1><p>シダは湿気を好みます 🌿, naïve café crème.</p></body></html>`;

// Replaces what a reader in the page's own world would lean on.
const TAMPERING = `<script>
Array.prototype.map = () => { throw new Error("tampered map"); };
Array.prototype.forEach = () => { throw new Error("tampered forEach"); };
Document.prototype.querySelectorAll = () => { throw new Error("tampered querySelectorAll"); };
Element.prototype.querySelectorAll = () => [];
Node.prototype.cloneNode = function () { return document.createTextNode("tampered"); };
String.prototype.replace = () => "tampered";
globalThis.TextEncoder = undefined;
</script>`;

const BIG = `<!doctype html><html><head>${HEAD}</head><body><p id="big"></p><script>
document.getElementById("big").textContent = "€".repeat(2_000_000);
</script></body></html>`;

const TEXT = { "content-type": "text/plain; charset=utf-8" };
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>Dot</text></svg>`;

interface Fixture {
  pages: PageServer;
  browser: Browser;
  open(path: string): Promise<Page>;
}

async function withFixture(test: (fixture: Fixture) => Promise<void>): Promise<void> {
  const pages = servePages({
    "/articles/ferns.html": () => html(ARTICLE_PAGE),
    "/landing": () => html(LANDING),
    "/scripted": () => html(SCRIPTED),
    "/unicode": () => html(UNICODE),
    "/tampering": () => html(ARTICLE_PAGE.replace("</head>", `${TAMPERING}</head>`)),
    "/big": () => html(BIG),
    "/notes.txt": () => new Response("plain *notes*\nline two", { headers: TEXT }),
    "/dot.svg": () => new Response(SVG, { headers: { "content-type": "image/svg+xml" } }),
  });
  const browser = await launchChromium();
  try {
    await test({
      pages,
      browser,
      async open(path) {
        const page = await browser.newPage();
        await page.goto(`${pages.origin}${path}`, { waitUntil: "load" });
        return page;
      },
    });
  } finally {
    await browser.close();
    await pages.close();
  }
}

function liveDom(page: Page): Promise<string> {
  return page.evaluate("document.documentElement.outerHTML") as Promise<string>;
}

Deno.test("markdown of an article: its text as GFM, without navigation, sidebar, footer or cookie bar", async () => {
  await withFixture(async ({ pages, open }) => {
    const page = await open("/articles/ferns.html");
    const { text, truncated } = await readContent(page, "markdown", READ_MS);
    assert.equal(text, articleMarkdown(pages.origin));
    assert.equal(truncated, false);
    for (const word of CHROME_WORDS) assert.ok(!text.includes(word), word);
  });
});

Deno.test("markdown of a landing page without an article: its body, the chrome still left out", async () => {
  await withFixture(async ({ pages, open }) => {
    const page = await open("/landing");
    const { text } = await readContent(page, "markdown", READ_MS);
    // A lazy image's real source is the one kept.
    assert.equal(
      text,
      `# Acme widgets\n\nFast widgets for [every](${pages.origin}/shop) shelf.\n\n` +
        `![Shelf](${pages.origin}/lazy.png)\n`,
    );
  });
});

Deno.test("markdown and html hold what a script wrote after load, and non-ASCII text intact", async () => {
  await withFixture(async ({ pages, open }) => {
    const scripted = await open("/scripted");
    await scripted.waitForSelector("#done");
    const markdown = await readContent(scripted, "markdown", READ_MS);
    // The page's title is not its first heading, so it comes first, and Readability takes the
    // article's h1 a level down.
    assert.equal(
      markdown.text,
      "# Acme widgets\n\n## Written later\n\nScripts wrote this paragraph.\n",
    );
    const page = await readContent(scripted, "html", READ_MS);
    assert.ok(page.text.startsWith("<!DOCTYPE html>\n<html><head>"), page.text.slice(0, 80));
    assert.ok(page.text.includes(`<base href="${pages.origin}/scripted">`));
    // Nothing in it runs: no script, no handler, no javascript: link.
    assert.ok(page.text.includes(`<p id="done">Scripts wrote this <a>paragraph</a>.</p>`));
    assert.ok(!/<script|onclick|javascript:/i.test(page.text));

    const unicode = await open("/unicode");
    const { text } = await readContent(unicode, "markdown", READ_MS);
    assert.equal(text, "# Über Farne\n\nシダは湿気を好みます 🌿, naïve café crème.\n");
  });
});

Deno.test("documents that are no HTML page: plain text as a code block, SVG without a doctype", async () => {
  await withFixture(async ({ open }) => {
    const text = await open("/notes.txt");
    assert.equal(
      (await readContent(text, "markdown", READ_MS)).text,
      "```\nplain *notes*\nline two\n```\n",
    );
    const svg = await open("/dot.svg");
    assert.equal((await readContent(svg, "markdown", READ_MS)).text, "Dot\n");
    assert.equal((await readContent(svg, "html", READ_MS)).text, SVG);
  });
});

Deno.test("reading leaves the live page as it was and loads nothing", async () => {
  await withFixture(async ({ pages, open }) => {
    for (const path of ["/articles/ferns.html", "/landing"]) {
      const page = await open(path);
      const before = await liveDom(page);
      await readContent(page, "markdown", READ_MS);
      await readContent(page, "html", READ_MS);
      assert.equal(await liveDom(page), before);
    }
    // The clone has no window: the lazy image's source set in it is never fetched.
    assert.equal(pages.hits.get("/lazy.png"), undefined);
  });
});

Deno.test("a page that replaces built-ins and DOM methods cannot change what is read", async () => {
  await withFixture(async ({ pages, open }) => {
    const page = await open("/tampering");
    // The tampering took hold in the page's own world.
    assert.equal(await page.evaluate(`"abc".replace("a", "b")`), "tampered");
    const { text } = await readContent(page, "markdown", READ_MS);
    assert.equal(text, articleMarkdown(pages.origin).replace("/articles/", "/"));
    const page2 = await readContent(page, "html", READ_MS);
    assert.ok(page2.text.includes("<h1>Growing ferns indoors</h1>"));
    assert.ok(!/<script/i.test(page2.text));
  });
});

Deno.test("a text over the cap is cut at a character boundary and marked truncated", async () => {
  await withFixture(async ({ open }) => {
    const page = await open("/big");
    for (const format of ["html", "markdown"] as const) {
      const { text, truncated } = await readContent(page, format, READ_MS);
      const bytes = new TextEncoder().encode(text).length;
      assert.equal(truncated, true, format);
      assert.ok(bytes <= MAX_CONTENT_BYTES && bytes > MAX_CONTENT_BYTES - 3, `${format}: ${bytes}`);
      assert.ok(text.endsWith("€"), format);
    }
  });
});

Deno.test("a page that never yields its main thread fails the reading as read_timeout at the budget", async () => {
  await withFixture(async ({ open }) => {
    const page = await open("/landing");
    await page.evaluate(`setTimeout(() => { for (;;) {} }, 0)`);
    await assert.rejects(
      readContent(page, "markdown", 1_000),
      (error) => error instanceof PageFailure && error.detail.kind === "read_timeout",
    );
  });
});
