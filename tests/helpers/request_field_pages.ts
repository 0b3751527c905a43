/**
 * Loopback pages for the request-field tests (format, emulation, blocking, metadata, html): what
 * a page saw comes back in its title (read by the capture's metadata) and in the server's own
 * record of requests and their headers.
 */
import type { Route } from "./capture_fixtures.ts";

const page = (head: string, body: string, lang = "") =>
  new Response(
    `<!doctype html><html${lang}><head><meta charset="utf-8">${head}</head>` +
      `<body style="margin:0">${body}</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  );

/** What the page saw, written into its title for the capture's metadata to bring back. */
const SEEN_SCRIPT = `<script>
  fetch("/ran");
  document.title = JSON.stringify({
    language: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
    print: matchMedia("print").matches,
    dark: matchMedia("(prefers-color-scheme: dark)").matches,
  });
</script>`;

/** A blue SVG square. */
const picture = () =>
  new Response(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">` +
      `<rect width="100" height="100" fill="#0000ff"/></svg>`,
    { headers: { "content-type": "image/svg+xml" } },
  );

/**
 * Routes: /seen (reports language, time zone, reduced motion, print and colour scheme in its
 * title; fetches /ran when its script runs; green on screen, red in print), /assets (a web font
 * /font.woff2 and an image /pic.svg), /photo (colour gradients, for lossy formats), /meta-full and
 * /meta-none (every metadata field, and none), /socket (titled "opened" or "refused" by its
 * attempt to open a WebSocket). `languages` gets each /seen request's
 * Accept-Language.
 */
export function requestFieldRoutes(languages: (string | null)[]): Record<string, Route> {
  return {
    "/seen": (request) => {
      languages.push(request.headers.get("accept-language"));
      return page(
        `<style>body { background: #00ff00; height: 100vh; }
         @media print { body { background: #ff0000; } }</style>`,
        SEEN_SCRIPT,
      );
    },
    "/ran": () => new Response("ran"),
    // Whether the page could open a WebSocket (interception never sees one).
    "/socket": () =>
      page(
        "",
        `<script>try { new WebSocket("ws://127.0.0.1:9/"); document.title = "opened"; } ` +
          `catch { document.title = "refused"; }</script>`,
      ),
    "/assets": () =>
      page(
        `<style>@font-face { font-family: probe; src: url(/font.woff2); }
         body { font-family: probe, sans-serif; }</style>`,
        `<p>text</p><img src="/pic.svg" width="100" height="100">`,
      ),
    "/font.woff2": () =>
      new Response(new Uint8Array(16), { headers: { "content-type": "font/woff2" } }),
    "/pic.svg": picture,
    "/photo": () =>
      page(
        "",
        `<div style="height:100vh;background:linear-gradient(90deg,#ff0000,#00ff00,#0000ff)">` +
          `<div style="height:50vh;background:linear-gradient(#ffffff00,#000000)"></div></div>`,
      ),
    "/meta-full": () =>
      page(
        `<title> Full   page </title>
         <meta name="description" content="All the fields.">
         <meta name="theme-color" media="(prefers-color-scheme: light)" content="#123456">
         <meta name="theme-color" media="(prefers-color-scheme: dark)" content="#654321">
         <link rel="icon" href="/icons/16.png" sizes="16x16">
         <link rel="icon" href="/icons/192.png" sizes="192x192">
         <link rel="icon" href="/icons/48.png" sizes="48x48">
         <link rel="apple-touch-icon" href="/icons/touch.png">
         <meta property="og:image" content="/card.png">`,
        `<div style="height:100vh;background:#ffffff"></div>`,
        ` lang="en-GB"`,
      ),
    "/meta-none": () => page("", `<div style="height:100vh;background:#ffffff"></div>`),
  };
}
