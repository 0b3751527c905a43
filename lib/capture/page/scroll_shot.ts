/**
 * A settled full page the way a person scrolling sees it: the real viewport visits each scroll
 * position from the top, the page is settled there (reveals, counters and scroll-linked timelines
 * reach the state a person sees on arriving), and the screen is shot; the screens are joined into
 * one image (png_stitch.ts), each document row once. The first screen shows fixed and sticky
 * elements where they sit at the top; later screens hide fixed ones and let sticky ones stay in
 * the flow, so they appear once. Viewport-sized things (`vh` heights, fixed backgrounds) keep
 * the real viewport's size, and no single bitmap has to hold the page.
 */
import type { Page } from "puppeteer-core";
import { createPngStitcher, type PngBand } from "../../codecs/png_stitch.ts";
import { captureCap, documentHeight } from "./full_page.ts";
import { shootViewport, type ShotStyle } from "./shoot.ts";
import { STRADDLING_SCRIPT } from "./observer_scripts.ts";

export interface ScrollShot {
  style: ShotStyle;
  /** The longest side the image may have in device px. */
  maxSide: number;
  /** Shoots the first screen (at the top, already settled): the blank-frame guard may retry. */
  shootFirst(): Promise<Uint8Array>;
  /** Settles the page at the scroll position just reached; bounded, a best attempt. */
  settleHere(): Promise<void>;
  /** performance.now() after which screens are shot without settling (the walk's budget). */
  settleUntil: number;
}

export interface ScrolledPage {
  png: Uint8Array;
  /** The page was taller than the cap and was cut. */
  truncated: boolean;
  /** Screens shot. */
  screens: number;
}

// Runs in the page before each screen after the first: elements fixed to the viewport are
// hidden (they were shot once, on the first screen) unless they cover most of it (a background
// layer, seen on every screen); sticky ones are put back in the flow, where they sit unscrolled.
const REPEATED_CHROME_SCRIPT = `() => {
  const screen = innerWidth * innerHeight;
  const set = (el, name, value) => el.style.setProperty(name, value, "important");
  for (const el of document.querySelectorAll("body *")) {
    const position = getComputedStyle(el).position;
    if (position === "fixed") {
      const r = el.getBoundingClientRect();
      if (r.width * r.height >= 0.75 * screen) continue;
      set(el, "opacity", "0");
      set(el, "transition", "none");
    } else if (position === "sticky") {
      set(el, "position", "relative");
      set(el, "top", "auto");
      set(el, "bottom", "auto");
    }
  }
}`;

// A screen cut short at a watched element (see scrollShot) still adds at least this share of a
// screen, so a page full of them takes at most four times the screens.
const MIN_SCREEN_SHARE = 0.25;

// Runs in the page: scrolls the document to `y` at once (a page's smooth scrolling ignored) and
// returns where it landed.
const SCROLL_SCRIPT = `(y) => {
  scrollTo({ top: y, left: 0, behavior: "instant" });
  return Math.round(scrollY);
}`;

/** Walks the page's scroll positions and joins the screens (see the module comment). */
export async function scrollShot(page: Page, walk: ScrollShot): Promise<ScrolledPage> {
  const viewport = page.viewport();
  const screenHeight = viewport?.height ?? 0;
  const scale = walk.style.scale;
  const cap = captureCap(page, { scale, maxSide: walk.maxSide });
  const stitcher = createPngStitcher();
  let shown = 0;
  let screens = 0;
  let height = await documentHeight(page);
  // The settle ran where the page opened (an anchor may have scrolled it): the top is shot as
  // it is only if that was the top.
  const openedAtTop = Number(await page.evaluate("Math.round(scrollY)")) === 0;
  // The screen shot last, joined while Chromium draws the next one (two cores at work).
  let previous: PngBand | null = null;
  while (shown < Math.min(height, cap) && screenHeight > 0) {
    const end = Math.min(height, cap);
    const target = Math.max(0, Math.min(shown, height - screenHeight));
    const at = await scrollTo(page, target);
    let shot: Promise<Uint8Array>;
    if (screens === 0 && at === 0 && openedAtTop) shot = walk.shootFirst();
    else {
      if (performance.now() < walk.settleUntil) await walk.settleHere();
      await page.evaluate(`(${REPEATED_CHROME_SCRIPT})()`);
      shot = shootViewport(page, walk.style);
    }
    if (previous) stitcher.add(previous);
    previous = null;
    const png = await shot;
    // The screen shows document rows [at, at + screenHeight); those above `shown` are in already.
    // It stops short of a watched element that runs off its bottom (a reveal whose threshold only
    // the next screen reaches), which then starts the next screen, so it is shot whole, revealed.
    const straddling = await page.evaluate(`(${STRADDLING_SCRIPT})()`) as number | null;
    const cut = straddling !== null && straddling >= shown + screenHeight * MIN_SCREEN_SHARE
      ? straddling
      : Infinity;
    const rows = Math.min(at + screenHeight, end, cut) - shown;
    if (at > shown || rows <= 0) break;
    previous = { png, skipRows: (shown - at) * scale, rows: rows * scale };
    shown += rows;
    screens++;
    // Lazy content may have made the page taller (or a removed preloader shorter).
    height = await documentHeight(page);
  }
  if (previous) stitcher.add(previous);
  // Cut at the cap, or stopped short where the page would not scroll on.
  return {
    png: stitcher.finish(),
    truncated: height > cap || shown < Math.min(height, cap),
    screens,
  };
}

/** Scrolls to `y`, again if the page moved it (a scroll anchor, a script); where it landed. */
async function scrollTo(page: Page, y: number): Promise<number> {
  let at = 0;
  for (let tries = 0; tries < 3; tries++) {
    at = Number(await page.evaluate(`(${SCROLL_SCRIPT})(${y})`));
    if (at === y) break;
  }
  return at;
}
