/**
 * Pages for the capture report's findings, shaped like the walls real sites put up (a
 * Cloudflare-like bot check, a consent platform's full-screen dialog, a redirect to a sign-in
 * form) and their harmless look-alikes (a small cookie banner), plus a page whose console, script
 * and requests fail in known ways. Served on loopback by servePages; shared by the tests and
 * bench/findings.ts.
 */
import type { FindingKind } from "../lib/capture/report.ts";
import type { Route } from "./capture_fixtures.ts";

const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

/** Ordinary article text, long enough to be a page of its own (about 2,000 characters). */
export const ARTICLE_TEXT = Array.from(
  { length: 8 },
  (_, i) =>
    `<p>Paragraph ${i + 1} of the harbour report. The tide turned twice along the estuary ` +
    "today, and the mudflats showed curlews, redshanks and a heron feeding at low water while " +
    "the ferry waited for enough depth at the old pier to take the morning crossing.</p>",
).join("\n");

const ARTICLE = `<!doctype html><html lang="en"><head>${HEAD}<title>Harbour report</title>
<style>body { font: 18px/1.5 serif; margin: 2em auto; max-width: 40em }</style></head><body>
<h1>Harbour report</h1>${ARTICLE_TEXT}</body></html>`;

// Cloudflare's interstitial as it is served: a title, a short text, the challenge form and the
// Turnstile box, the challenge platform's script (served here as an empty script).
const challengePage = (status: number) =>
  html(
    `<!doctype html><html lang="en-US"><head>${HEAD}<title>Just a moment...</title></head>
<body><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">shop.example</h1>
<h2 class="h2" id="challenge-running">Verifying you are human. This may take a few seconds.</h2>
<div id="turnstile-wrapper"><div class="cf-turnstile" style="width:300px;height:65px"></div></div>
<form id="challenge-form" action="/?__cf_chl_f_tk=abc" method="POST">
<input type="hidden" name="md" value="x"></form>
<p>shop.example needs to review the security of your connection before proceeding.</p>
</div></div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>
</body></html>`,
    status,
  );

// A consent platform's dialog over the whole viewport, the page behind it locked.
const CONSENT_WALL = `<!doctype html><html lang="en"><head>${HEAD}<title>Harbour report</title>
<style>body { font: 18px/1.5 serif; margin: 2em auto; max-width: 40em; overflow: hidden }
#onetrust-consent-sdk { position: fixed; inset: 0; background: rgba(0,0,0,.6); z-index: 99 }
#onetrust-banner-sdk { position: absolute; top: 20%; left: 20%; right: 20%; padding: 2em;
  background: #fff; font: 16px sans-serif }</style></head><body>
<h1>Harbour report</h1>${ARTICLE_TEXT}
<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" role="dialog">
<h2>We value your privacy</h2><p>We and our partners use cookies to store and access personal
data on your device. Accept to consent, or reject all but the necessary ones.</p>
<button id="accept">Accept all</button> <button id="reject">Reject all</button>
</div></div></body></html>`;

// A small cookie banner at the bottom: the page stays readable, no wall.
const COOKIE_BANNER = `<!doctype html><html lang="en"><head>${HEAD}<title>Harbour report</title>
<style>body { font: 18px/1.5 serif; margin: 2em auto; max-width: 40em }
.cookie-bar { position: fixed; left: 0; right: 0; bottom: 0; height: 80px; background: #222;
  color: #fff; font: 16px sans-serif; padding: 1em }</style></head><body>
<h1>Harbour report</h1>${ARTICLE_TEXT}
<div class="cookie-bar">This site uses cookies. <button>Accept</button> <button>Reject</button>
</div></body></html>`;

const LOGIN = `<!doctype html><html lang="en"><head>${HEAD}<title>Sign in</title></head><body>
<main style="max-width:22em;margin:4em auto;font:16px sans-serif">
<h1>Sign in to continue reading</h1>
<form method="post" action="/session"><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="password"></label>
<button type="submit">Log in</button></form><p><a href="/reset">Forgot your password?</a></p>
</main></body></html>`;

const BLANK = `<!doctype html><html><head>${HEAD}<title></title></head><body>
<div id="app"></div><script>/* the app never mounts */</script></body></html>`;

const NOT_FOUND = `<!doctype html><html lang="en"><head>${HEAD}<title>404 Not Found</title></head>
<body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>`;

const SOFT_NOT_FOUND = `<!doctype html><html lang="en"><head>${HEAD}
<title>Page not found | Harbour</title></head><body><h1>Sorry, we can't find that page</h1>
<p>Try the <a href="/">home page</a>.</p></body></html>`;

/** The noisy page: two console.error calls, one uncaught exception, a 404 image, a refused port. */
export function noisyPage(refusedPort: number): string {
  return `<!doctype html><html lang="en"><head>${HEAD}<title>Noisy</title></head><body>
<h1>Harbour report</h1>${ARTICLE_TEXT}
<img src="/missing.png" width="64" height="64" alt="">
<img src="http://127.0.0.1:${refusedPort}/beacon.png" width="64" height="64" alt="">
<script>
console.error("first failure", { code: 7 });
console.error("x".repeat(1000));
console.log("not an error");
setTimeout(() => { throw new Error("kaput: uncaught in a timer"); }, 0);
</script></body></html>`;
}

/** A page taller than a webp may be (16383 px): a full-page webp of it is cut. */
const TALL = `<!doctype html><html><head>${HEAD}<title>Tall</title></head>
<body style="margin:0"><h1>Tall page</h1>${ARTICLE_TEXT}
<div style="height:17000px;background:linear-gradient(#fff,#48c)"></div></body></html>`;

/** Each fixture's path and the findings its capture must report, in order. */
export const FINDING_PAGES: { path: string; findings: FindingKind[]; options?: object }[] = [
  { path: "/findings/article", findings: [] },
  { path: "/findings/challenge-403", findings: ["bot_challenge"] },
  { path: "/findings/challenge", findings: ["bot_challenge"] },
  { path: "/findings/consent-wall", findings: ["consent_wall"] },
  { path: "/findings/consent-wall", findings: [], options: { hideCookieBanners: true } },
  { path: "/findings/cookie-banner", findings: [] },
  { path: "/findings/paywalled", findings: ["login_wall"] },
  { path: "/findings/blank", findings: ["blank"] },
  { path: "/findings/not-found", findings: ["error_page"] },
  { path: "/findings/soft-not-found", findings: ["error_page"] },
  {
    path: "/findings/tall",
    findings: ["truncated"],
    options: { fullPage: true, format: "webp", settle: false },
  },
];

/** The routes of the finding pages, for servePages; `refusedPort` is a port nothing listens on. */
export function findingRoutes(refusedPort: number): Record<string, Route> {
  return {
    "/findings/article": () => html(ARTICLE),
    "/findings/challenge-403": () => challengePage(403),
    "/findings/challenge": () => challengePage(200),
    "/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1": () =>
      new Response("/* challenge */", { headers: { "content-type": "text/javascript" } }),
    "/findings/consent-wall": () => html(CONSENT_WALL),
    "/findings/cookie-banner": () => html(COOKIE_BANNER),
    "/findings/paywalled": () =>
      new Response(null, { status: 302, headers: { location: "/findings/login" } }),
    "/findings/login": () => html(LOGIN),
    "/findings/blank": () => html(BLANK),
    "/findings/not-found": () => html(NOT_FOUND, 404),
    "/findings/soft-not-found": () => html(SOFT_NOT_FOUND),
    "/findings/noisy": () => html(noisyPage(refusedPort)),
    "/findings/tall": () => html(TALL),
  };
}

/** A loopback port nothing listens on (bound, then closed at once). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
