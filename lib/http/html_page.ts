import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export interface PageHead {
  title: string;
  /** Same-origin URL of the page's one stylesheet (pages carry no inline style). */
  stylesheet: string;
  /** A URL that serves the page's content as Markdown, for agents that read the head. */
  markdown: string;
  /** Same-origin URL of a module script, for the pages that have one. */
  script?: string;
  /** Modules the script imports, preloaded so the browser fetches them in one round trip. */
  modules?: string[];
}

/**
 * The `<head>` of every HTML page: one stylesheet, an optional module script, and links to the
 * API description and the Markdown version, so every page is a discovery entry point.
 */
export function pageHead(head: PageHead) {
  return html`
    <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="color-scheme" content="light dark">
      <title>${head.title}</title>
      <link rel="icon" href="data:,">
      <link rel="stylesheet" href="${head.stylesheet}">
      <link rel="service-desc" href="/openapi.json" type="application/json">
      <link rel="alternate" href="${head.markdown}" type="text/markdown">
      ${head.script ? html`<script type="module" src="${head.script}"></script>` : ""}
      ${(head.modules ?? []).map((path) => html`<link rel="modulepreload" href="${path}">`)}
    </head>
  `;
}

/** A whole HTML document: the shared head around `body`. */
export function htmlPage(head: PageHead, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`
    <!doctype html>
    <html lang="en">
    ${pageHead(head)}
    <body>
    ${body}
    </body>
    </html>
  `;
}
