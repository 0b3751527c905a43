/**
 * The measures of a shot that is not the viewport: how tall the page is, which element scrolls
 * when the document does not (an app shell's <main>) and how it is unrolled, the area of an
 * element or a clip, all cut at the capture cap (request/options.ts) so a 100,000 px page never
 * asks for a bitmap nobody can hold.
 */
import type { Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import { type CaptureRect, maxCaptureHeight } from "../request/options.ts";
import { LOAD_IMAGES_SCRIPT, WATCH_VIEWPORT_LISTENERS } from "./settle_scripts.ts";

/** A rectangle of the document in CSS px, and whether the cap (or the document) cut it. */
export interface ShotArea {
  clip: CaptureRect;
  truncated: boolean;
}

// Runs in the page (kept as text: the service is not type-checked against the DOM).
const DOC_HEIGHT = `Math.max(document.documentElement.scrollHeight,
  document.body ? document.body.scrollHeight : 0)`;

/** The document's scroll height in CSS px at the current viewport. */
export async function documentHeight(page: Page): Promise<number> {
  const measured = await page.evaluate(DOC_HEIGHT);
  return typeof measured === "number" && measured > 0 ? Math.ceil(measured) : 0;
}

/** How big an image may be: its scale and its longest side in device px (the cap). */
export interface ImageBounds {
  scale: number;
  maxSide: number;
}

/** The capture cap in CSS px of height for the page's viewport width. */
export function captureCap(page: Page, bounds: ImageBounds): number {
  return maxCaptureHeight(page.viewport()?.width ?? 0, bounds.scale, bounds.maxSide);
}

/**
 * Runs in every document before its scripts for an unsettled full page: notes whether the page
 * watches the viewport, so a page that does not is not scrolled through for nothing.
 */
export const LAZY_HINTS_SCRIPT = `(() => {
  const hints = { observers: 0, scrollListeners: 0 };
  Object.defineProperty(window, "__shotlineLazyHints", { value: hints });
  ${WATCH_VIEWPORT_LISTENERS}
})();`;

// Scrolls through the part that will be shot, one viewport per animation frame so scroll
// handlers and IntersectionObservers see each band (unless the page has neither, nor lazy
// frames), back to the top, then makes lazy images inside the shot load now and waits
// (bounded) for them.
const NUDGE_SCRIPT = `async (maxHeight, budget) => {
  const end = performance.now() + budget;
  const frame = () => new Promise((resolve) =>
    requestAnimationFrame(() => setTimeout(resolve, 0)));
  const hints = window.__shotlineLazyHints;
  const scrolls = !hints || hints.observers > 0 || hints.scrollListeners > 0 ||
    onscroll !== null || document.onscroll !== null ||
    document.querySelector("iframe[loading=lazy]") !== null;
  for (let y = innerHeight; scrolls && y < Math.min(${DOC_HEIGHT}, maxHeight); y += innerHeight) {
    if (performance.now() > end) break;
    scrollTo({ top: y, behavior: "instant" });
    await frame();
  }
  scrollTo({ top: 0, behavior: "instant" });
  const pending = (${LOAD_IMAGES_SCRIPT})(maxHeight);
  if (pending.length === 0) return;
  const left = Math.max(0, end - performance.now());
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, left))]);
}`;

/** Scrolls through the part of the page a full-page shot covers, so lazy content loads. */
export async function nudgeLazyContent(
  page: Page,
  options: ImageBounds & { budgetMs: number },
): Promise<void> {
  if (options.budgetMs <= 0) return;
  const cap = captureCap(page, options);
  await page.evaluate(`(${NUDGE_SCRIPT})(${cap}, ${Math.round(options.budgetMs)})`);
}

// Runs in the page. When the document does not scroll but an element covering at least half of
// the viewport does (an app shell's <main>, a chat's message list), that element and its
// ancestors are let grow to their content, so the document scrolls instead and shows it whole,
// once, with the chrome around it. Nested scrollers: the largest in view (the outer one on a
// tie). Observers rooted at the container see all of it at once, so its lazy content loads.
// Returns what it unrolled, for the log.
const UNROLL_SCRIPT = `() => {
  const doc = document.scrollingElement || document.documentElement;
  if (doc.scrollHeight > innerHeight + 1) return null;
  let best = null;
  let bestArea = 0;
  for (const el of document.querySelectorAll("body *")) {
    if (el.scrollHeight <= el.clientHeight + 1) continue;
    if (!/auto|scroll|overlay/.test(getComputedStyle(el).overflowY)) continue;
    const r = el.getBoundingClientRect();
    const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
    const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
    if (w * h > bestArea) {
      best = el;
      bestArea = w * h;
    }
  }
  if (!best || bestArea < 0.5 * innerWidth * innerHeight) return null;
  const hidden = best.scrollHeight - best.clientHeight;
  const set = (el, name, value) => el.style.setProperty(name, value, "important");
  // Each box from the container up grows to its content, never below the height it has now (a
  // sibling sized by a viewport-tall parent, a side nav, keeps its size). One pinned to the
  // viewport by its offsets (absolute or fixed, top and bottom set) keeps its place but lets go
  // of the bottom; a fixed one becomes absolute, so it scrolls with the document.
  const boxes = [];
  for (let el = best; el; el = el.parentElement) {
    boxes.push({ el, height: el.getBoundingClientRect().height, position: getComputedStyle(el).position });
  }
  for (const { el, height, position } of boxes) {
    set(el, "min-height", height + "px");
    set(el, "height", "auto");
    set(el, "max-height", "none");
    set(el, "overflow-y", "visible");
    if (position === "fixed") set(el, "position", "absolute");
    if (position === "fixed" || position === "absolute") set(el, "bottom", "auto");
  }
  set(best, "flex-shrink", "0");
  return { tag: best.tagName.toLowerCase(), hidden };
}`;

/**
 * Unrolls the page's main scroll container when the document itself does not scroll (see
 * UNROLL_SCRIPT); what it unrolled (tag and hidden height in CSS px), or null.
 */
export async function unrollScrollContainer(
  page: Page,
): Promise<{ tag: string; hidden: number } | null> {
  return await page.evaluate(`(${UNROLL_SCRIPT})()`) as { tag: string; hidden: number } | null;
}

/** The whole page from the top, the viewport's width, at most the cap tall. */
export async function fullPageArea(page: Page, bounds: ImageBounds): Promise<ShotArea> {
  const width = page.viewport()?.width ?? 0;
  const cap = captureCap(page, bounds);
  const height = await documentHeight(page) || cap;
  return { clip: { x: 0, y: 0, width, height: Math.min(height, cap) }, truncated: height > cap };
}

// Runs in the page: the first match's box in document coordinates, or null.
const ELEMENT_BOX_SCRIPT = `(selector) => {
  const element = document.querySelector(selector);
  if (!element) return null;
  const r = element.getBoundingClientRect();
  return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
}`;

/** The first element matching `selector`, cut at the cap; 400 when there is none or it is empty. */
export async function elementArea(
  page: Page,
  options: ImageBounds & { selector: string },
): Promise<ShotArea> {
  const { selector } = options;
  const box = await page.evaluate(
    `(${ELEMENT_BOX_SCRIPT})(${JSON.stringify(selector)})`,
  ) as CaptureRect | null;
  if (!box || box.width < 1 || box.height < 1) {
    throw new PageFailure({ kind: "no_element", selector });
  }
  return cutToCap(snapToPixels(box), options);
}

// Runs in the page: the document's scrollable size.
const DOC_SIZE = `({ width: Math.max(document.documentElement.scrollWidth,
  document.body ? document.body.scrollWidth : 0), height: ${DOC_HEIGHT} })`;

/** A clip rectangle cut to the document and to the cap; `truncated` when either cut it. */
export async function clipArea(
  page: Page,
  options: ImageBounds & { rect: CaptureRect },
): Promise<ShotArea> {
  const { rect } = options;
  const doc = await page.evaluate(DOC_SIZE) as { width: number; height: number };
  const x = Math.min(Math.max(0, Math.floor(rect.x)), Math.max(0, doc.width - 1));
  const y = Math.min(Math.max(0, Math.floor(rect.y)), Math.max(0, doc.height - 1));
  const width = Math.max(1, Math.min(Math.ceil(rect.x + rect.width), doc.width) - x);
  const height = Math.max(1, Math.min(Math.ceil(rect.y + rect.height), doc.height) - y);
  const inDocument = x === rect.x && y === rect.y && width === rect.width &&
    height === rect.height;
  const area = cutToCap({ x, y, width, height }, options);
  return { clip: area.clip, truncated: area.truncated || !inDocument };
}

/** A box widened to whole CSS pixels. */
function snapToPixels(box: CaptureRect): CaptureRect {
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  return {
    x,
    y,
    width: Math.ceil(box.x + box.width) - x,
    height: Math.ceil(box.y + box.height) - y,
  };
}

/** A rectangle no taller (and no wider) than the cap allows. */
function cutToCap(rect: CaptureRect, bounds: ImageBounds): ShotArea {
  const { scale, maxSide } = bounds;
  const width = Math.min(rect.width, maxCaptureHeight(1, scale, maxSide));
  const height = Math.min(rect.height, maxCaptureHeight(width, scale, maxSide));
  return {
    clip: { ...rect, width, height },
    truncated: width < rect.width || height < rect.height,
  };
}
