/**
 * The favicon's boundary vectors, shared by the e2e tests of both backends: pages on the public
 * site (public.test) that point their icon at a forbidden host in every form a page can (`icon`,
 * `shortcut icon`, `apple-touch-icon`, the origin's /favicon.ico, redirect chains, loopback names
 * and literals, the metadata address), a public icon that must still be kept and loaded once,
 * and an endless icon that must be read once and cut.
 */
import type { Route } from "./capture_fixtures.ts";
import { solidPng } from "./icons.ts";

/** The public site's own icon. */
export const PUBLIC_ICON = solidPng(16, [255, 0, 0]);

const html = (head: string) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8">${head}</head>` +
      `<body style="margin:0;background:#fff">icon</body></html>`,
    { headers: { "content-type": "text/html" } },
  );
const redirect = (location: string) => new Response(null, { status: 302, headers: { location } });

/**
 * The public site's routes: `/page?head=<html>` declares what `head` says; `/hop?to=<url>`
 * redirects there; `/icon.png` is the public icon; `/endless.png` never ends (`endless.sent`
 * counts the bytes it handed out); `/fallback/` has no icon, its origin's /favicon.ico redirects
 * to `fallbackTo()`, else it is the public icon.
 */
export function faviconSite(options: { fallbackTo?: () => string | null } = {}) {
  const endless = { sent: 0 };
  const routes: Record<string, Route> = {
    "/page": (request) => html(new URL(request.url).searchParams.get("head") ?? ""),
    "/hop": (request) => redirect(new URL(request.url).searchParams.get("to")!),
    "/icon.png": () =>
      new Response(PUBLIC_ICON.slice(), { headers: { "content-type": "image/png" } }),
    "/favicon.ico": () => {
      const to = options.fallbackTo?.();
      return to
        ? redirect(to)
        : new Response(PUBLIC_ICON.slice(), { headers: { "content-type": "image/png" } });
    },
    "/endless.png": () => {
      const block = new Uint8Array(64 * 1024);
      block.set(PUBLIC_ICON.subarray(0, 16));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          endless.sent += block.length;
          controller.enqueue(block.slice());
        },
      });
      return new Response(body, { headers: { "content-type": "image/png" } });
    },
    "/fallback/": () => html("<title>no icon declared</title>"),
  };
  return { routes, endless };
}

/** A public page whose head is `head`. */
export const pageWith = (head: string) =>
  `http://public.test/page?head=${encodeURIComponent(head)}`;

const hop = (to: string) => `http://public.test/hop?to=${encodeURIComponent(to)}`;

/**
 * Pages whose icon leads to a forbidden host, by name; `secret` is the port of loopback
 * servers on 127.0.0.1 and ::1 that must never be contacted.
 */
export function forbiddenIconPages(secret: number): Record<string, string> {
  const v4 = `http://127.0.0.1:${secret}/secret.png`;
  const name = `http://localhost:${secret}/secret.png`;
  const v6 = `http://[::1]:${secret}/secret.png`;
  return {
    icon: pageWith(`<link rel="icon" href="${v4}">`),
    shortcutIcon: pageWith(`<link rel="shortcut icon" href="${name}">`),
    appleTouchIcon: pageWith(`<link rel="apple-touch-icon" href="${v6}">`),
    mappedLiteral: pageWith(`<link rel="icon" href="http://[::ffff:7f00:1]:${secret}/x.png">`),
    httpsLoopback: pageWith(`<link rel="icon" href="https://localhost:${secret}/x.png">`),
    metadata: pageWith(`<link rel="icon" href="http://169.254.169.254/latest/meta-data/">`),
    redirect: pageWith(`<link rel="icon" href="${hop(v4)}">`),
    redirectChain: pageWith(`<link rel="icon" href="${hop(hop(hop(name)))}">`),
    redirectToV6: pageWith(`<link rel="shortcut icon" href="${hop(v6)}">`),
  };
}

/** The forbidden URLs the /favicon.ico fallback redirects to, one per capture. */
export function forbiddenFallbacks(secret: number): string[] {
  return [
    `http://127.0.0.1:${secret}/favicon.ico`,
    `http://localhost:${secret}/favicon.ico`,
    "http://169.254.169.254/favicon.ico",
  ];
}

/** The html job of the report: a document that names a loopback icon, with no URL at all. */
export const htmlJobIcon = (secret: number) =>
  `<link rel="icon" href="http://127.0.0.1:${secret}/secret.png">`;
