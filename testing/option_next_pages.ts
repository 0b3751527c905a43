/**
 * Loopback pages for the newer capture options (viewport, status, styles, clicks, removal,
 * transparency, chat widgets, credentials). Pages report what they saw to `reports`.
 */
import type { Route } from "./capture_fixtures.ts";

const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

function html(body: string, status = 200): Response {
  return new Response(
    `<!doctype html><html><head>${HEAD}</head><body style="margin:0">${body}</body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8" } },
  );
}

/**
 * The annoyance list the tests serve themselves (EasyList syntax): a generic element rule for
 * Intercom's launcher, of the kind Fanboy's Annoyance List carries.
 */
export const TEST_ANNOYANCE_LIST = "! Title: shotline test annoyance list\n" +
  "##.intercom-lightweight-app\n";

/** What the pages reported, by name (the last report wins). */
export type Reports = Map<string, Record<string, unknown>>;

/** A script that posts `expression`'s value (an object) as report `name`. */
const report = (name: string, expression: string) =>
  `<script>fetch("/report?${name}", { method: "POST", body: JSON.stringify(${expression}) });` +
  `</script>`;

/**
 * Routes: /size (reports innerWidth, innerHeight, userAgent, touch), /not-found (a 404 page),
 * /plain (white), /chat (Intercom's launcher markup, a red 60 px bubble at the bottom right),
 * /annoyances.txt (TEST_ANNOYANCE_LIST), /panel (a button at the top that shows a green panel at y 600, after a
 * short fetch), /badge (no background; a 200x200 green circle at 100,100), /stack (a 300 px red banner above a blue block), /report (records a report). Only the pages' own behaviour lives here; headers are recorded
 * by the server helper of each test file.
 */
export function nextOptionRoutes(reports: Reports): Record<string, Route> {
  return {
    "/size": () =>
      html(
        `<div style="height:100vh;background:#ffffff"></div>` +
          report(
            "size",
            `{ width: innerWidth, height: innerHeight, userAgent: navigator.userAgent, ` +
              `touch: navigator.maxTouchPoints > 0, dpr: devicePixelRatio }`,
          ),
      ),
    "/not-found": () => html(`<div style="height:100vh;background:#0000ff">gone</div>`, 404),
    "/plain": () => html(`<div style="height:100vh"></div>`),
    "/panel": () =>
      html(
        `<button id="toggle" style="width:200px;height:100px">Details</button>` +
          `<div id="panel" style="display:none;height:300px;margin-top:500px;background:#00ff00">` +
          `</div><script>toggle.addEventListener("click", async () => { await fetch("/plain"); ` +
          `panel.style.display = "block"; });</script>`,
      ),
    "/chat": () =>
      html(
        `<div style="height:100vh"></div><div class="intercom-lightweight-app">` +
          `<div class="intercom-lightweight-app-launcher intercom-launcher" role="button" ` +
          `tabindex="0" aria-label="Open Intercom Messenger" style="position:fixed;z-index:9;` +
          `bottom:20px;right:20px;width:60px;height:60px;border-radius:50%;background:#ff0000">` +
          `</div></div>`,
      ),
    "/annoyances.txt": () =>
      new Response(TEST_ANNOYANCE_LIST, { headers: { "content-type": "text/plain" } }),
    "/badge": () =>
      new Response(
        `<!doctype html><html><head>${HEAD}</head><body style="margin:0;padding:100px">` +
          `<div id="badge" style="width:200px;height:200px;border-radius:50%;` +
          `background:#00ff00"></div></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
    "/stack": () =>
      html(
        `<div class="banner" style="height:300px;background:#ff0000"></div>` +
          `<div style="height:2000px;background:#0000ff"></div>`,
      ),
    "/report": async (request) => {
      const name = new URL(request.url).search.slice(1);
      reports.set(name, await request.json());
      return new Response(null, { status: 204 });
    },
  };
}
