/**
 * The person-like judge of a full-page capture. A real Chromium at 1920x1080, in real time, loads
 * the page, waits as a person does, then scrolls to each screen in wheel steps, waits there for
 * reveals, counters and scrubbed timelines (1.5 s), and shoots the screen six times 500 ms apart.
 * The last shot is compared with the same band of the capture under test (the band starts at the
 * screen's scroll offset) over the pixels that count:
 * - not moving by themselves (different between any two shots: carousels, typing, pulses, long
 *   entrances);
 * - below the first screen, not on an element fixed or sticky to the viewport (a fixed header
 *   belongs once, at the top), unless it covers more than half the viewport (a fixed backdrop
 *   is part of every screen), and for a page that scrolls inside a container, not outside it.
 * A screen's score is the share of those pixels within TOLERANCE on every channel; a missing
 * block is a 64x64 tile, mostly counted and not flat in the reference, that is mostly wrong.
 */
import type { Browser } from "puppeteer-core";
import sharp from "sharp";

export const VIEWPORT = { width: 1920, height: 1080 };
/** Largest difference on any channel (0-255) that still counts as the same pixel. */
export const TOLERANCE = 24;
export const PASS_SCORE = 0.98;
const TILE = 64;
const MISSING_TILE_SHARE = 0.6;
// A tile counts for a missing block when at least half its pixels count and its reference
// brightness spans more than this (a flat tile cannot show that content is missing).
const FLAT_RANGE = 32;
const SETTLE_AT_LOAD_MS = 3000;
const SETTLE_AT_SCREEN_MS = 1500;
const WATCH_SHOTS = 6;
const SHOT_INTERVAL_MS = 500;
const WHEEL_STEP = 120;
const WHEEL_PAUSE_MS = 50;

export interface Image {
  width: number;
  height: number;
  /** RGBA, row by row. */
  data: Uint8Array;
}

export interface Screen {
  /** The scroll offset of the page's scroller at this screen, CSS px = image px at 1x. */
  offset: number;
  shot: Image;
  /** 1 where a pixel does not count. */
  mask: Uint8Array;
}

export interface Reference {
  /** "document" or the selector-like name of the scroll container the person scrolled. */
  scroller: string;
  /** Scroll height of the scroller. */
  scrollHeight: number;
  screens: Screen[];
  /** Screens the wheel did not reach (the page swallowed it) and that were scrolled to directly. */
  wheelMissed: number;
}

/** Decodes a PNG (or any image sharp reads) to RGBA. */
export async function decode(png: Uint8Array): Promise<Image> {
  const { data, info } = await sharp(png, { limitInputPixels: false }).ensureAlpha().raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

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

export interface ScreenScore {
  offset: number;
  /** Where the compared band starts in the capture. */
  bandTop: number;
  score: number;
  /** Share of the screen's pixels that count. */
  counted: number;
  missingBlocks: number;
  /** 1 where a counted pixel differs. */
  wrong: Uint8Array;
}

/** Scores every screen of `reference` against its band of `capture`. */
export function scoreCapture(reference: Reference, capture: Image): ScreenScore[] {
  const { width: w, height: h } = VIEWPORT;
  return reference.screens.map((screen) => {
    const bandTop = Math.max(0, Math.min(screen.offset, capture.height - h));
    const wrong = new Uint8Array(w * h);
    let counted = 0, bad = 0;
    for (let y = 0; y < h; y++) {
      const cy = bandTop + y;
      for (let x = 0; x < w; x++) {
        const p = y * w + x;
        if (screen.mask[p]) continue;
        counted++;
        if (cy >= capture.height || x >= capture.width) {
          wrong[p] = 1; // the capture has no pixel here at all
          bad++;
          continue;
        }
        const i = p * 4, j = (cy * capture.width + x) * 4;
        const s = screen.shot.data, c = capture.data;
        if (
          Math.abs(s[i] - c[j]) > TOLERANCE || Math.abs(s[i + 1] - c[j + 1]) > TOLERANCE ||
          Math.abs(s[i + 2] - c[j + 2]) > TOLERANCE
        ) {
          wrong[p] = 1;
          bad++;
        }
      }
    }
    return {
      offset: screen.offset,
      bandTop,
      score: counted ? 1 - bad / counted : 1,
      counted: counted / (w * h),
      missingBlocks: missingBlocks(screen, wrong),
      wrong,
    };
  });
}

function missingBlocks(screen: Screen, wrong: Uint8Array): number {
  const { width: w, height: h } = VIEWPORT;
  let blocks = 0;
  for (let ty = 0; ty + TILE <= h; ty += TILE) {
    for (let tx = 0; tx + TILE <= w; tx += TILE) {
      let counted = 0, bad = 0, lo = 255, hi = 0;
      for (let y = ty; y < ty + TILE; y++) {
        for (let x = tx; x < tx + TILE; x++) {
          const p = y * w + x;
          if (screen.mask[p]) continue;
          counted++;
          bad += wrong[p];
          const i = p * 4, d = screen.shot.data;
          const luma = (d[i] * 299 + d[i + 1] * 587 + d[i + 2] * 114) / 1000;
          lo = Math.min(lo, luma);
          hi = Math.max(hi, luma);
        }
      }
      if (
        counted >= TILE * TILE / 2 && hi - lo > FLAT_RANGE && bad > MISSING_TILE_SHARE * counted
      ) {
        blocks++;
      }
    }
  }
  return blocks;
}

/**
 * Writes the screen, its band of the capture and the difference side by side at half size:
 * wrong pixels red, uncounted ones dimmed grey.
 */
export async function writeSideBySide(
  path: string,
  screen: Screen,
  score: ScreenScore,
  capture: Image,
) {
  const { width: w, height: h } = VIEWPORT;
  const out = new Uint8Array(w * 3 * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, i = p * 4;
      const o = (y * w * 3 + x) * 4;
      out.set(screen.shot.data.subarray(i, i + 4), o);
      const cy = score.bandTop + y;
      if (cy < capture.height && x < capture.width) {
        const j = (cy * capture.width + x) * 4;
        out.set(capture.data.subarray(j, j + 4), o + w * 4);
      }
      const d = o + w * 8;
      const grey = (screen.shot.data[i] + screen.shot.data[i + 1] + screen.shot.data[i + 2]) / 3;
      if (screen.mask[p]) out.set([120, 120, 120, 255], d);
      else if (score.wrong[p]) out.set([255, 0, 0, 255], d);
      else out.set([grey, grey, grey, 255].map((v) => 200 + v / 5), d);
    }
  }
  await sharp(out, { raw: { width: w * 3, height: h, channels: 4 } })
    .resize(w * 3 / 2, h / 2).png().toFile(path);
}

/** A capture stitched from the reference's own shots (`shift` px down): the scorer's self-check. */
export function stitch(reference: Reference, shift = 0): Image {
  const { width: w, height: h } = VIEWPORT;
  const last = reference.screens[reference.screens.length - 1];
  const height = last.offset + h;
  const data = new Uint8Array(w * height * 4).fill(255);
  // Last screen first, so each earlier screen is whole where they overlap.
  for (const screen of [...reference.screens].reverse()) {
    for (let y = 0; y < h; y++) {
      const ty = screen.offset + y + shift;
      if (ty < 0 || ty >= height) continue;
      data.set(screen.shot.data.subarray(y * w * 4, (y + 1) * w * 4), ty * w * 4);
    }
  }
  return { width: w, height, data };
}
