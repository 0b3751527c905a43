/**
 * What a person scrolling a page sees. A real Chromium at 1920x1080, in real time, loads the
 * page, waits as a person does, then scrolls to each screen in wheel steps, waits there for
 * reveals, counters and scrubbed timelines (1.5 s), and shoots the screen six times 500 ms apart.
 * The last shot is the screen; its mask marks the pixels that do not count (see `compare.ts` for
 * the scoring):
 * - those moving by themselves (different between any two shots: carousels, typing, pulses, long
 *   entrances);
 * - below the first screen, those of an element fixed or sticky to the viewport (a fixed header
 *   belongs once, at the top), unless it covers more than half the viewport (a fixed backdrop
 *   is part of every screen), and for a page that scrolls inside a container, those outside it.
 */
import type { Browser } from "puppeteer-core";
import { decode, type Image, type Reference, type Screen, VIEWPORT } from "./compare.ts";

const SETTLE_AT_LOAD_MS = 3000;
const SETTLE_AT_SCREEN_MS = 1500;
const WATCH_SHOTS = 6;
const SHOT_INTERVAL_MS = 500;
const WHEEL_STEP = 120;
const WHEEL_PAUSE_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

// Runs in the page: the scroller a person scrolls (the document, or the largest element that
// scrolls and covers at least half the viewport when the document does not), its box, and the
// boxes of visible fixed and sticky elements.
const PAGE_STATE = `(() => {
  const root = document.scrollingElement || document.documentElement;
  const area = innerWidth * innerHeight;
  let scroller = root;
  if (root.scrollHeight <= innerHeight + 1) {
    let best = 0;
    for (const el of document.querySelectorAll("*")) {
      if (!/(auto|scroll)/.test(getComputedStyle(el).overflowY)) continue;
      if (el.scrollHeight <= el.clientHeight + 1) continue;
      const r = el.getBoundingClientRect();
      const visible = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0)) *
        Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
      if (visible >= area / 2 && visible > best) [best, scroller] = [visible, el];
    }
  }
  const box = scroller === root
    ? { x: 0, y: 0, width: innerWidth, height: innerHeight }
    : scroller.getBoundingClientRect().toJSON();
  const pinned = [];
  for (const el of document.querySelectorAll("*")) {
    if (!/fixed|sticky/.test(getComputedStyle(el).position)) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width * r.height > area / 2) continue; // a backdrop, part of every screen
    pinned.push(r.toJSON());
  }
  globalThis.__realSitesScroller = scroller;
  return {
    name: scroller === root
      ? "document"
      : scroller.tagName.toLowerCase() + (scroller.id ? "#" + scroller.id : ""),
    scrollTop: scroller.scrollTop,
    scrollHeight: scroller.scrollHeight,
    clientHeight: scroller === root ? innerHeight : scroller.clientHeight,
    box,
    pinned,
  };
})()`;

// Cheap enough to read between wheel steps (the scroller is the one PAGE_STATE chose).
const SCROLL_TOP = "globalThis.__realSitesScroller.scrollTop";
// A page that swallows the wheel (scroll hijacking) is moved there directly after all.
const SCROLL_TO = "(y) => { globalThis.__realSitesScroller.scrollTop = y; }";

interface PageState {
  name: string;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  box: Rect;
  pinned: Rect[];
}

/** Visits every screen of `url` as a person would and returns the shots with their masks. */
export async function shootReference(browser: Browser, url: string): Promise<Reference> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ ...VIEWPORT, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: "networkidle2", timeout: 60_000 });
    await sleep(SETTLE_AT_LOAD_MS); // a person waits for the preloader and the first paint
    const first = await page.evaluate(PAGE_STATE) as PageState;
    const step = first.clientHeight;
    const max = first.scrollHeight - first.clientHeight;
    const offsets: number[] = [];
    for (let y = 0; y < max; y += step) offsets.push(y);
    offsets.push(Math.max(0, max));
    const screens: Screen[] = [];
    let wheelMissed = 0;
    for (const target of [...new Set(offsets)]) {
      // Wheel steps that add up to the distance, then wait for smooth scrolling to stop.
      const distance = target - (await page.evaluate(SCROLL_TOP) as number);
      // The wheel turns over the scroller's right edge (the document's or the container's).
      await page.mouse.move(first.box.x + first.box.width - 8, first.box.y + first.box.height / 2);
      for (let sent = 0; Math.abs(distance - sent) > 0.5;) {
        const delta = Math.sign(distance) * Math.min(WHEEL_STEP, Math.abs(distance - sent));
        await page.mouse.wheel({ deltaY: delta });
        sent += delta;
        await sleep(WHEEL_PAUSE_MS);
      }
      let now = await page.evaluate(SCROLL_TOP) as number;
      for (let previous = NaN, tries = 0; now !== previous && tries < 30; tries++) {
        previous = now;
        await sleep(100);
        now = await page.evaluate(SCROLL_TOP) as number;
      }
      if (Math.abs(target - now) > 0.5) {
        wheelMissed++;
        await page.evaluate(`(${SCROLL_TO})(${target})`);
      }
      // The pointer leaves the page, as a person's hand goes back to the table: no hover effect
      // of whatever ended up under it (portfolio overlays) is in the shot.
      await page.mouse.move(-10, -10);
      await sleep(SETTLE_AT_SCREEN_MS);
      const state = await page.evaluate(PAGE_STATE) as PageState;
      // Watched for a while: whatever changes between any two shots moves by itself (a
      // carousel holding each slide 1.5 s, a 4 s entrance, a pulse) and does not count.
      const mask = new Uint8Array(VIEWPORT.width * VIEWPORT.height);
      let shot = await decode(await page.screenshot({ type: "png" }));
      for (let i = 1; i < WATCH_SHOTS; i++) {
        await sleep(SHOT_INTERVAL_MS);
        const next = await decode(await page.screenshot({ type: "png" }));
        markMoving(mask, shot, next);
        shot = next;
      }
      if (screens.length > 0) {
        for (const r of state.pinned) markRect(mask, r);
        if (state.name !== "document") markOutside(mask, state.box);
      }
      screens.push({ offset: Math.round(state.scrollTop), shot, mask });
    }
    for (let i = 1; i < screens.length; i++) markScrollLinked(screens[i - 1], screens[i]);
    return { scroller: first.name, scrollHeight: first.scrollHeight, screens, wheelMissed };
  } finally {
    await page.close();
  }
}

// Pixels that changed between the two shots, grown by 2 px so their anti-aliased edges go too.
function markMoving(mask: Uint8Array, a: Image, b: Image) {
  const { width, height } = a;
  const moved: number[] = [];
  for (let i = 0, p = 0; p < width * height; p++, i += 4) {
    if (
      Math.max(
        Math.abs(a.data[i] - b.data[i]),
        Math.abs(a.data[i + 1] - b.data[i + 1]),
        Math.abs(a.data[i + 2] - b.data[i + 2]),
      ) > 8
    ) moved.push(p);
  }
  for (const p of moved) {
    const x = p % width, y = (p / width) | 0;
    markRect(mask, { x: x - 2, y: y - 2, width: 5, height: 5 });
  }
}

/**
 * Where two screens overlap (the last one, clamped at the bottom, shows rows the one before
 * showed too), a row that looks different from the two scroll positions follows the scroll
 * (parallax layers): no single image can match both screens there, the judge's own stitch
 * included, so it does not count in either. Pixels already not counted in the later screen
 * (fixed and sticky elements) are not compared.
 */
function markScrollLinked(a: Screen, b: Screen) {
  const { width, height } = VIEWPORT;
  const shift = b.offset - a.offset;
  if (shift <= 0 || shift >= height) return;
  for (let y = 0; y < height - shift; y++) {
    for (let x = 0; x < width; x++) {
      const pb = y * width + x;
      const pa = (y + shift) * width + x;
      if (b.mask[pb]) continue;
      const i = pb * 4, j = pa * 4;
      const differs = Math.max(
        Math.abs(a.shot.data[j] - b.shot.data[i]),
        Math.abs(a.shot.data[j + 1] - b.shot.data[i + 1]),
        Math.abs(a.shot.data[j + 2] - b.shot.data[i + 2]),
      ) > 8;
      if (differs) {
        b.mask[pb] = 1;
        a.mask[pa] = 1;
      }
    }
  }
}

function markRect(mask: Uint8Array, r: Rect) {
  const x0 = Math.max(0, Math.floor(r.x)), x1 = Math.min(VIEWPORT.width, Math.ceil(r.x + r.width));
  const y0 = Math.max(0, Math.floor(r.y));
  const y1 = Math.min(VIEWPORT.height, Math.ceil(r.y + r.height));
  for (let y = y0; y < y1; y++) mask.fill(1, y * VIEWPORT.width + x0, y * VIEWPORT.width + x1);
}

function markOutside(mask: Uint8Array, r: Rect) {
  const { width: w, height: h } = VIEWPORT;
  markRect(mask, { x: 0, y: 0, width: w, height: r.y });
  markRect(mask, { x: 0, y: r.y + r.height, width: w, height: h });
  markRect(mask, { x: 0, y: 0, width: r.x, height: h });
  markRect(mask, { x: r.x + r.width, y: 0, width: w, height: h });
}
