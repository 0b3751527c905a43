/**
 * Loopback pages for the request-field tests (format, emulation, blocking, metadata, html): what
 * a page saw comes back in its title (read by the capture's metadata) and in the server's own
 * record of requests and their headers.
 */
import type { Route } from "./capture_fixtures.ts";
import { icoOf, noisePng, solidPng } from "./icons.ts";

/** The icons the metadata pages declare, as served (the tests compare what comes back). */
export const ICONS = {
  png48: solidPng(48, [0x12, 0x34, 0x56]),
  // The origin's /favicon.ico: three images, of which a browser bar wants the 32 px one.
  ico: icoOf([
    { side: 16, bytes: solidPng(16, [255, 0, 0]) },
    { side: 32, bytes: solidPng(32, [0, 128, 0]) },
    { side: 64, bytes: solidPng(64, [0, 0, 255]) },
  ]),
  ico32: solidPng(32, [0, 128, 0]),
  // Larger than any icon carried.
  large: noisePng(128),
};

const image = (bytes: Uint8Array, type: string) =>
  new Response(bytes.slice(), { headers: { "content-type": type } });

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

/** A page that declares one icon. */
const iconPage = (href: string) =>
  page(`<title>icon</title><link rel="icon" href="${href}">`, "<p>icon</p>");

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
 * /meta-none (every metadata field, and none; their icons /icons/48.png and /favicon.ico, an .ico
 * of three images), /meta-not-icon, /meta-large-icon, /meta-slow-icon and /meta-svg-icon (an icon
 * that is HTML, one too large, one never answered, an SVG one), /meta-icon-changes (PNG, then
 * SVG once loaded), /socket (titled "opened" or "refused" by its
 * attempt to open a WebSocket). `languages` gets each /seen request's
 * Accept-Language, `iconRequests` the headers of each /icons/48.png request.
 */
export function requestFieldRoutes(
  languages: (string | null)[],
  iconRequests: Headers[] = [],
): Record<string, Route> {
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
    "/icons/48.png": (request) => {
      iconRequests.push(request.headers);
      return image(ICONS.png48, "image/png");
    },
    "/favicon.ico": () => image(ICONS.ico, "image/vnd.microsoft.icon"),
    // Icons a capture must leave out: not an image (a site's HTML with a 200), too large, never
    // answered; and an SVG one it keeps.
    "/meta-not-icon": () => iconPage("/not-icon.png"),
    "/not-icon.png": () => page("<title>Not found</title>", "<p>no such icon</p>"),
    "/meta-large-icon": () => iconPage("/large.png"),
    "/large.png": () => image(ICONS.large, "image/png"),
    "/meta-slow-icon": () => iconPage("/slow.png"),
    "/slow.png": async (_, hold) => (await hold(), image(ICONS.png48, "image/png")),
    "/meta-svg-icon": () => iconPage("/pic.svg"),
    // Declares the PNG icon, then swaps it for the SVG one once loaded (as a notification badge
    // would).
    "/meta-icon-changes": () =>
      page(
        `<title>icon</title><link id="icon" rel="icon" href="/icons/48.png">`,
        `<script>addEventListener("load", () => setTimeout(() => {
          document.getElementById("icon").href = "/pic.svg";
        }, 100));</script>`,
      ),
  };
}
