/** Loopback pages for the capture-option tests (full page, element, hiding, waits, ads, consent). */
import { type Route, svg } from "./capture_fixtures.ts";

const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

const html = (body: string) =>
  new Response(
    `<!doctype html><html><head>${HEAD}</head><body style="margin:0">${body}</body></html>`,
    {
      headers: { "content-type": "text/html; charset=utf-8" },
    },
  );

/** A solid block in normal flow. */
const band = (height: number, color: string, extra = "") =>
  `<div ${extra} style="height:${height}px;background:${color}"></div>`;

/** Bands of 1000 px alternating red and blue, `count` of them (band 0 red). */
const stripes = (count: number) =>
  Array.from({ length: count }, (_, i) => band(1000, i % 2 === 0 ? "#ff0000" : "#0000ff")).join("");

/** The ad-block list the tests serve themselves (EasyList syntax). */
export const TEST_FILTER_LIST = "! Title: shotline test list\n/ads/banner.\n##.ad-slot\n";

/**
 * Routes: /long (5000 px: white, 200 px blue band at the bottom), /huge (40000 px of 1000 px
 * stripes), /lazy (a lazy green image at 4000 px), /observed (a block at 4000 px that an
 * IntersectionObserver turns from red to green), /card (a 400x300 green box at y 1500),
 * /strip (a red strip at the top), /late (a blue block added after 800 ms), /changes (red,
 * green after 600 ms), /ads (an ad slot and an ad image), /onetrust, /didomi, /cookiebot
 * (consent dialogs mimicking those platforms' markup), /filters.txt (TEST_FILTER_LIST).
 */
export function optionRoutes(consentChoices: string[]): Record<string, Route> {
  const recordChoice = (name: string) =>
    `fetch("/choice?${name}", { method: "POST" }); this.closest("[data-dialog]").remove();`;
  const dialog = (id: string, inner: string) =>
    `<div id="${id}" data-dialog style="position:fixed;left:0;right:0;bottom:0;height:400px;` +
    `background:#ff0000;z-index:10">${inner}</div>`;
  /** A platform's wrapper holding its dialog, whose reject button reports `choice`. */
  const consentPage = (
    wrapper: string,
    dialogId: string,
    buttons: { accept: string; reject: string; choice: string },
  ) =>
    html(
      band(1080, "#ffffff") + wrapper +
        dialog(
          dialogId,
          `<button id="${buttons.accept}">Accept</button><button id="${buttons.reject}" ` +
            `onclick='${recordChoice(buttons.choice)}'>Reject</button>`,
        ) + `</div>`,
    );
  return {
    "/long": () => html(band(4800, "#ffffff") + band(200, "#0000ff")),
    "/huge": () => html(stripes(40)),
    "/lazy": () =>
      html(
        band(4000, "#ffffff") +
          `<img loading="lazy" src="/img/green.svg" width="200" height="200" style="display:block">` +
          band(1000, "#ffffff"),
      ),
    "/img/green.svg": () => svg("#00ff00"),
    "/observed": () =>
      html(
        band(4000, "#ffffff") + band(300, "#ff0000", `id="target"`) + band(1000, "#ffffff") +
          `<script>new IntersectionObserver((entries) => { for (const e of entries) ` +
          `if (e.isIntersecting) e.target.style.background = "#00ff00"; }).observe(target);` +
          `</script>`,
      ),
    "/card": () =>
      html(
        band(1500, "#ffffff") +
          `<div id="card" style="margin-left:100px;width:400px;height:300px;background:#00ff00">` +
          `</div>` + band(500, "#ffffff"),
      ),
    "/strip": () =>
      html(
        `<div style="height:100vh;background:#ffffff"><div class="strip" style="height:200px;` +
          `background:#ff0000"></div></div>`,
      ),
    "/late": () =>
      html(
        `<div style="height:100vh;background:#ffffff"></div><script>setTimeout(() => {
          const el = document.createElement("div");
          el.id = "late";
          el.style.cssText = "position:fixed;inset:0;background:#0000ff";
          document.body.append(el);
        }, 800);</script>`,
      ),
    "/changes": () =>
      html(
        `<div id="c" style="height:100vh;background:#ff0000"></div><script>addEventListener(` +
          `"load", () => setTimeout(() => c.style.background = "#00ff00", 600));</script>`,
      ),
    "/ads": () =>
      html(
        `<div style="height:100vh;background:#ffffff">` +
          band(300, "#ff0000", `class="ad-slot"`) +
          `<img src="/ads/banner.svg" width="200" height="200"></div>`,
      ),
    "/ads/banner.svg": () => svg("#ff0000"),
    "/filters.txt": () =>
      new Response(TEST_FILTER_LIST, { headers: { "content-type": "text/plain" } }),
    // OneTrust's banner with its reject button (what its SDK renders).
    "/onetrust": () =>
      consentPage(`<div id="onetrust-consent-sdk">`, "onetrust-banner-sdk", {
        accept: "onetrust-accept-btn-handler",
        reject: "onetrust-reject-all-handler",
        choice: "onetrust-reject",
      }),
    // Didomi's host and notice with its disagree button.
    "/didomi": () =>
      consentPage(`<div id="didomi-host">`, "didomi-notice", {
        accept: "didomi-notice-agree-button",
        reject: "didomi-notice-disagree-button",
        choice: "didomi-disagree",
      }),
    // Cookiebot's dialog without its script API: only the cosmetic fallback can hide it.
    "/cookiebot": () =>
      html(band(1080, "#ffffff") + dialog("CybotCookiebotDialog", "<p>We use cookies</p>")),
    "/choice": (request) => {
      consentChoices.push(new URL(request.url).search.slice(1));
      return new Response(null, { status: 204 });
    },
  };
}
