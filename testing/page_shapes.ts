/**
 * Test fixture: page shapes for full-page captures, each built of solid bands whose colour comes
 * from the band's index, so a seam, gap, shift or repeated band shows in the pixels. Long
 * documents (with fixed and sticky headers), an app shell scrolling inside `<main>`, chat logs
 * that start at their bottom, a docs layout with its own scrolling sidebar, and a page where the
 * document and a box both scroll. Sizes are CSS px; the tests derive every expected row from the
 * constants exported here.
 */
import { type Route, svg } from "./capture_fixtures.ts";

/** Colours no band ever has (band channels stay within 40..215). */
export const HEADER = [255, 0, 255];
export const NAV = [0, 255, 255];
export const LAZY = [0, 255, 0];
export const OBSERVED = [255, 255, 0];
export const WHITE = [255, 255, 255];

/** The colour of band `index` (0..511), unique per index; neighbours differ by 25 in red. */
export function bandColor(index: number): number[] {
  return [40 + (index % 8) * 25, 40 + (Math.floor(index / 8) % 8) * 25, 40 + (index >> 6) * 25];
}

const hex = (rgb: number[]) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");

/** Bands of `height` px, indices `first` .. `first + count - 1`, in that order. */
function bands(count: number, height: number, first = 0, reversed = false): string {
  const html = Array.from(
    { length: count },
    (_, i) => `<div style="height:${height}px;background:${hex(bandColor(first + i))}"></div>`,
  );
  return (reversed ? html.reverse() : html).join("");
}

const page = (style: string, body: string) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width"><style>html,body{margin:0}` +
      `${style}</style></head><body>${body}</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  );

/** A long document: 100 px bands from the top, or below a 100 px header (fixed or sticky). */
export const LONG = { band: 100, header: 100 };
/** The long pages: total height in CSS px and the header each has. */
export const LONG_PAGES: Record<string, { height: number; header: "fixed" | "sticky" | null }> = {
  "/long/20000-fixed": { height: 20_000, header: "fixed" },
  "/long/30000-sticky": { height: 30_000, header: "sticky" },
  "/long/40000": { height: 40_000, header: null },
  "/long/12000": { height: 12_000, header: null },
};

function longPage(height: number, header: "fixed" | "sticky" | null): Response {
  const top = header ? LONG.header : 0;
  const bar = header
    ? `<header style="position:${header};top:0;left:0;right:0;height:${LONG.header}px;` +
      `background:${hex(HEADER)};z-index:2"></header>`
    : "";
  const style = header === "fixed" ? `body{padding-top:${LONG.header}px}` : "";
  return page(style, bar + bands((height - top) / LONG.band, LONG.band));
}

/** The shorter shapes: 250 px bands, 100 px headers, a 1920x1080 viewport in mind. */
export const SHAPE = { band: 250, header: 100, bands: 20 };

/**
 * The app shell: a 64 px fixed app bar, a 240 px side nav, and `<main>` scrolling its 24 bands
 * (6000 px) under them; a lazy image in band 20 and one an IntersectionObserver rooted at main
 * loads in band 22, both at `imageLeft` px into main and `imageTop` px into their band. `main` sits
 * in a flex row (`/shapes/app-shell`), or is pinned to the viewport by its offsets
 * (`/shapes/app-shell-pinned`: absolute, top and bottom set), each with its own image paths.
 */
export const APP_SHELL = {
  bar: 64,
  nav: 240,
  bands: 24,
  lazyBand: 20,
  observedBand: 22,
  imageLeft: 20,
  imageTop: 25,
  imageSize: 200,
};

function appShell(layout: "flex" | "pinned"): Response {
  const { bar, nav, imageLeft, imageTop, imageSize } = APP_SHELL;
  const images = layout === "flex" ? "" : "-pinned";
  const image = (attrs: string) =>
    `<img ${attrs} width="${imageSize}" height="${imageSize}" style="position:absolute;` +
    `left:${imageLeft}px;top:${imageTop}px">`;
  const content = Array.from({ length: APP_SHELL.bands }, (_, i) => {
    const inner = i === APP_SHELL.lazyBand
      ? image(`loading="lazy" src="/shapes/lazy${images}.svg"`)
      : i === APP_SHELL.observedBand
      ? image(`class="observed" data-src="/shapes/observed${images}.svg"`)
      : "";
    return `<div style="position:relative;height:${SHAPE.band}px;` +
      `background:${hex(bandColor(i))}">${inner}</div>`;
  }).join("");
  return page(
    `body{height:100vh;box-sizing:border-box;padding-top:${bar}px;display:flex}` +
      `header{position:fixed;top:0;left:0;right:0;height:${bar}px;background:${hex(HEADER)}}` +
      `nav{flex:none;width:${nav}px;background:${hex(NAV)}}main{overflow-y:auto;` +
      (layout === "flex"
        ? "flex:1}"
        : `position:absolute;top:${bar}px;left:${nav}px;right:0;bottom:0}`),
    `<header></header><nav></nav><main>${content}</main><script>
      const main = document.querySelector("main");
      const observer = new IntersectionObserver((entries) => {
        for (const e of entries) if (e.isIntersecting) {
          e.target.src = e.target.dataset.src;
          observer.unobserve(e.target);
        }
      }, { root: main });
      for (const img of document.querySelectorAll(".observed")) observer.observe(img);
    </script>`,
  );
}

/**
 * A chat: a 100 px fixed title bar over a log of SHAPE.bands messages (band 0 the oldest, at the
 * top when read) that starts scrolled to its newest message at the bottom: by
 * `flex-direction: column-reverse` (newest first in the markup), or by a script at load.
 */
function chat(reverse: boolean): Response {
  const log = `<div id="log">${bands(SHAPE.bands, SHAPE.band, 0, reverse)}</div>`;
  return page(
    `body{height:100vh;box-sizing:border-box;padding-top:${SHAPE.header}px;display:flex;` +
      `flex-direction:column}header{position:fixed;top:0;left:0;right:0;` +
      `height:${SHAPE.header}px;background:${hex(HEADER)}}#log{flex:1;overflow-y:auto;` +
      `display:flex;flex-direction:${reverse ? "column-reverse" : "column"}}` +
      `#log>div{flex:none}`,
    `<header></header>${log}` +
      (reverse ? "" : `<script>log.scrollTop = log.scrollHeight;</script>`),
  );
}

/**
 * Docs: a sticky 100vh sidebar (280 px) scrolling its own 12 bands (indices from
 * `firstBand`) beside content of 24 bands in the document's own scroll.
 */
export const DOCS = { sidebar: 280, sideBands: 12, firstBand: 300, bands: 24 };

function docs(): Response {
  return page(
    `body{display:flex;align-items:flex-start}aside{position:sticky;top:0;height:100vh;` +
      `width:${DOCS.sidebar}px;flex:none;overflow-y:auto}main{flex:1}`,
    `<aside>${bands(DOCS.sideBands, SHAPE.band, DOCS.firstBand)}</aside>` +
      `<main>${bands(DOCS.bands, SHAPE.band)}</main>`,
  );
}

/**
 * Both scroll: a document of SHAPE.bands bands with an 800 px box at (left, top) scrolling
 * its own 16 bands of 200 px (indices from `firstBand`).
 */
export const BOTH = {
  left: 600,
  top: 1000,
  width: 800,
  height: 800,
  band: 200,
  bands: 16,
  firstBand: 400,
};

function both(): Response {
  const { left, top, width, height } = BOTH;
  return page(
    `#box{position:absolute;left:${left}px;top:${top}px;width:${width}px;height:${height}px;` +
      `overflow-y:auto}`,
    bands(SHAPE.bands, SHAPE.band) +
      `<div id="box">${bands(BOTH.bands, BOTH.band, BOTH.firstBand)}</div>`,
  );
}

/** A header of HEADER colour, fixed or sticky, over SHAPE.bands bands. */
function headerPage(kind: "fixed" | "sticky"): Response {
  const style = kind === "fixed" ? `body{padding-top:${SHAPE.header}px}` : "";
  return page(
    style,
    `<header style="position:${kind};top:0;left:0;right:0;height:${SHAPE.header}px;` +
      `background:${hex(HEADER)};z-index:2"></header>` + bands(SHAPE.bands, SHAPE.band),
  );
}

/** Every shape's route, for `servePages(shapeRoutes())`. */
export function shapeRoutes(): Record<string, Route> {
  const routes: Record<string, Route> = {
    "/shapes/fixed-header": () => headerPage("fixed"),
    "/shapes/sticky-header": () => headerPage("sticky"),
    "/shapes/app-shell": () => appShell("flex"),
    "/shapes/app-shell-pinned": () => appShell("pinned"),
    "/shapes/chat-reverse": () => chat(true),
    "/shapes/chat-bottom": () => chat(false),
    "/shapes/docs": docs,
    "/shapes/both": both,
    "/shapes/lazy.svg": () => svg(hex(LAZY)),
    "/shapes/observed.svg": () => svg(hex(OBSERVED)),
    "/shapes/lazy-pinned.svg": () => svg(hex(LAZY)),
    "/shapes/observed-pinned.svg": () => svg(hex(OBSERVED)),
  };
  for (const [path, { height, header }] of Object.entries(LONG_PAGES)) {
    routes[path] = () => longPage(height, header);
  }
  return routes;
}
