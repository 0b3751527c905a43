/**
 * The area a capture shoots when it is not the viewport: the whole page (a settled capture
 * grows the viewport to the document first; one with `settle: false` nudges lazy content by
 * scrolling through) or one element, cut at the size cap so a 40000 px page never asks
 * Chromium for a bitmap it cannot hold.
 */
import type { Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import { MAX_CAPTURE_HEIGHT, maxCaptureHeight } from "../request/options.ts";

/** A rectangle in CSS pixels of the document (null: the viewport), and whether the cap cut it. */
export interface ShotArea {
  clip: { x: number; y: number; width: number; height: number } | null;
  truncated: boolean;
}

// Runs in the page (kept as text: the service is not type-checked against the DOM).
const DOC_HEIGHT = `Math.max(document.documentElement.scrollHeight,
  document.body ? document.body.scrollHeight : 0)`;

/**
 * Script text, run before the page's own: counts in `hints` (an object in scope with
 * `observers` and `scrollListeners`) every IntersectionObserver the page makes and every scroll,
 * wheel or resize listener it adds, the ways script-driven lazy content and reveals notice the
 * viewport. Shared by the lazy hints below and the settle's init script.
 */
export const WATCH_VIEWPORT_LISTENERS = `
  const Observer = window.IntersectionObserver;
  if (Observer) {
    window.IntersectionObserver = new Proxy(Observer, {
      construct(target, args, newTarget) {
        hints.observers++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (type === "scroll" || type === "wheel" || type === "resize") hints.scrollListeners++;
    return listen.call(this, type, ...rest);
  };`;

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
  const inShot = [...document.images].filter((img) => {
    const r = img.getBoundingClientRect();
    return r.bottom > 0 && r.top < maxHeight;
  });
  for (const img of inShot) if (img.loading === "lazy") img.loading = "eager";
  const pending = inShot.filter((img) => !img.complete).map((img) => img.decode().catch(() => {}));
  if (pending.length === 0) return;
  const left = Math.max(0, end - performance.now());
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, left))]);
}`;

function capFor(page: Page, scale: number): { width: number; cap: number } {
  const width = page.viewport()?.width ?? 0;
  return { width, cap: maxCaptureHeight(width, scale) };
}

/** Scrolls through the part of the page a full-page shot covers, so lazy content loads. */
export async function nudgeLazyContent(
  page: Page,
  options: { scale: number; budgetMs: number },
): Promise<void> {
  if (options.budgetMs <= 0) return;
  const { cap } = capFor(page, options.scale);
  await page.evaluate(`(${NUDGE_SCRIPT})(${cap}, ${Math.round(options.budgetMs)})`);
}

// Runs in the page: holds every element exactly one viewport tall (a 100vh hero, a full-height
// overlay) and every 100vh min-height at its pixel value, so growing the viewport does not
// stretch them to the page; then the document's height at the real viewport.
const PIN_VIEWPORT_UNITS_SCRIPT = `() => {
  scrollTo({ top: 0, behavior: "instant" });
  const vh = innerHeight;
  const px = vh + "px";
  for (const el of document.body ? document.body.querySelectorAll("*") : []) {
    const style = getComputedStyle(el);
    if (style.display === "none") continue;
    const height = el.getBoundingClientRect().height;
    if (Math.abs(height - vh) < 1) el.style.setProperty("height", px, "important");
    if (Math.abs(parseFloat(style.minHeight) - vh) < 1) {
      el.style.setProperty("min-height", px, "important");
    }
    if (Math.abs(parseFloat(style.maxHeight) - vh) < 1) {
      el.style.setProperty("max-height", px, "important");
    }
  }
  return ${DOC_HEIGHT};
}`;

// Runs in the page: where the content ends, by the boxes of the body's children and
// grandchildren (fixed ones excepted); a grown viewport makes scrollHeight useless for this.
const CONTENT_BOTTOM_SCRIPT = `() => {
  let bottom = 0;
  const walk = (parent, depth) => {
    for (const el of parent.children) {
      const style = getComputedStyle(el);
      if (style.position === "fixed" || style.display === "none") continue;
      const r = el.getBoundingClientRect();
      if (r.height > 0) bottom = Math.max(bottom, r.bottom + (parseFloat(style.marginBottom) || 0));
      if (depth < 1) walk(el, depth + 1);
    }
  };
  if (document.body) walk(document.body, 0);
  const body = document.body ? getComputedStyle(document.body) : null;
  const extra = body
    ? (parseFloat(body.paddingBottom) || 0) + (parseFloat(body.marginBottom) || 0)
    : 0;
  return Math.ceil(bottom + scrollY + extra);
}`;

/**
 * Grows the viewport past the document (by one real viewport, so reveal thresholds such as
 * "top 80%" are crossed by the last section too, as when a person scrolls to the end) after
 * pinning viewport-tall elements; returns the document's height at the real viewport. Every
 * IntersectionObserver and scroll handler then sees the whole page in view at once: reveals
 * that hide again out of view stay shown, and a fixed header is drawn once, at the top.
 */
export async function growToDocument(page: Page): Promise<number> {
  const viewport = page.viewport();
  if (!viewport) return 0;
  const { cap } = capFor(page, viewport.deviceScaleFactor ?? 1);
  const measured = await page.evaluate(`(${PIN_VIEWPORT_UNITS_SCRIPT})()`);
  const height = typeof measured === "number" ? Math.ceil(measured) : cap;
  await page.setViewport({ ...viewport, height: Math.min(height + viewport.height, cap) });
  return height;
}

/** Where the content of a grown page ends, in CSS px. */
export async function contentBottom(page: Page): Promise<number> {
  const measured = await page.evaluate(`(${CONTENT_BOTTOM_SCRIPT})()`);
  return typeof measured === "number" ? measured : 0;
}

/**
 * The whole page from the top, the viewport's width, at most the cap tall; `height` when the
 * settle already measured it (a grown viewport makes the document at least that tall).
 */
export async function fullPageArea(
  page: Page,
  options: { scale: number; height?: number | null },
): Promise<ShotArea> {
  const { width, cap } = capFor(page, options.scale);
  const measured = options.height ?? await page.evaluate(DOC_HEIGHT);
  const height = typeof measured === "number" && measured > 0 ? Math.ceil(measured) : cap;
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
  options: { selector: string; scale: number },
): Promise<ShotArea> {
  const { selector, scale } = options;
  const box = await page.evaluate(
    `(${ELEMENT_BOX_SCRIPT})(${JSON.stringify(selector)})`,
  ) as ShotArea["clip"];
  if (!box || box.width < 1 || box.height < 1) {
    throw new PageFailure({ kind: "no_element", selector });
  }
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  const fullWidth = Math.ceil(box.x + box.width) - x;
  const fullHeight = Math.ceil(box.y + box.height) - y;
  const width = Math.min(fullWidth, MAX_CAPTURE_HEIGHT);
  const height = Math.min(fullHeight, maxCaptureHeight(width, scale));
  return {
    clip: { x, y, width, height },
    truncated: width < fullWidth || height < fullHeight,
  };
}
