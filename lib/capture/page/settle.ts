/**
 * The settle: brings a page to the state a person sees once it stopped moving, instead of
 * waiting it out. Each ingredient, what it brings and what it breaks, measured on the settle
 * corpus (bench/settle_ablation.ts, regions right of 22 in the viewport / 44 in full pages;
 * nothing: 12 / 18; a fixed 1.5 s delay: 21 / 27 at +1.5 s):
 *
 * - Virtual time (`Emulation.setVirtualTimePolicy` "advance", 5 s of page time in a few tens of
 *   ms): page timers fire at once (typing effects, class-added transitions, throttled scroll
 *   handlers, library debounces) and Date/performance.now follow; alone 20 / 27. It does not
 *   drive frames: Chromium paints at wall-clock pace, so a rAF ticker (GSAP) sees two or three
 *   frames. Hence the frame pump of settle_scripts.ts, which runs queued animation-frame
 *   callbacks every 16 ms of page time: with it 22 / 29. Breaks: page timeouts shorter than the
 *   budget fire (a fetch given 2 s gives up if the network is slower); after the budget the
 *   page's clock stands still, so nothing after it may wait on a page timer.
 * - Virtual time does not wait for the network: requests that change the picture (documents,
 *   styles, scripts, images, fonts, fetch/XHR, counted since before navigation and so before the
 *   viewport grew) are waited for in wall-clock time (at most 1.5 s), then a second, short
 *   budget lets their load handlers run.
 * - `finish()` on every finite animation of `document.getAnimations()` (CSS animations,
 *   transitions, Web Animations) and `cancel()` on infinite ones (a spinner at rest): the CSS
 *   timeline follows wall-clock frames, not virtual time; alone 19 / 25. Breaks: an effect
 *   whose end state is meant to be invisible (a toast fading out) is shot at that end.
 * - A full page is not settled by growing the viewport to the document (that breaks whatever is
 *   sized by the viewport: `vh` heights, `background-size: cover` with `background-attachment:
 *   fixed`) but by visiting the real scroll positions (scroll_shot.ts) and settling briefly at
 *   each (`settleBand`): reveals, counters and scroll-linked timelines reach the state a person
 *   sees there.
 * - `prefers-reduced-motion` is not emulated: it changed nothing on the corpus (12 / 18), and
 *   where a library does answer it, it is the page of a person who asked for less motion.
 * - A page with no pending timer, interval, frame callback or animation skips all of it: a
 *   static page pays one probe, a few milliseconds.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import {
  ASSETS_SCRIPT,
  FINISH_ANIMATIONS_SCRIPT,
  NUDGE_EVENTS_SCRIPT,
  PROBE_SCRIPT,
  PUMP_SCRIPT,
  SETTLE_INIT_SCRIPT,
  STOP_PUMP_SCRIPT,
} from "./settle_scripts.ts";
import { OBSERVERS_SEEN_SCRIPT } from "./observer_scripts.ts";

// Page time an entrance gets: longer than the usual 1 to 3 s intros and typing effects.
const VIRTUAL_BUDGET_MS = 5_000;
// Page time after late images and data arrived, for their load handlers and transitions.
const LATE_BUDGET_MS = 1_000;
// Wall-clock bound of one budget: a page that burns the CPU per frame is shot as it is.
const VIRTUAL_WALL_MS = 2_500;
// Network quiet after the budget, at most (requests started by the growth or by timers).
const NETWORK_MS = 1_500;
// Images and fonts inside the shot get this long to decode.
const ASSETS_MS = 1_500;
// Page time at each scroll position of a full page: reveals and counters started there (most run
// 0.5 to 2 s), and scrubbed timelines catching up with the position.
const BAND_BUDGET_MS = 2_500;
// Network quiet at each scroll position, at most (its lazy images and data).
const BAND_NETWORK_MS = 1_000;
// The page's observers are told about a scroll position in the browser's next frame, which a
// loaded machine can take a second or more to draw: waited for, within this bound.
const OBSERVERS_MS = 4_000;
// Page time run at a time while waiting for them (see observersSeen).
const OBSERVER_STEP_MS = 50;

export interface SettleContext {
  /** performance.now() at which the capture budget ends. */
  budgetEnd: number;
  /**
   * Resolves once nothing that changes the picture is in flight, or at `deadline` (the
   * request tracker of network.ts, counting since before navigation); true if it waited.
   */
  idle(deadline: number): Promise<boolean>;
}

/** What the settle did, for the shot and the trace. */
export interface Settled {
  /** Whether page time was advanced. */
  advanced: boolean;
  /** Nothing pending, animating or in flight from the start: the settle did nothing. */
  still: boolean;
}

interface Probe {
  installed: boolean;
  active: boolean;
  animations: number;
  observes: boolean;
}

/** Before navigation: the hints and the frame queue the settle reads (see settle_scripts.ts). */
export async function prepareSettle(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(SETTLE_INIT_SCRIPT);
}

/**
 * Brings the viewport to its settled state: advances page time, waits for the network and
 * assets, and finishes animations; a page with nothing pending skips it.
 */
export async function settlePage(page: Page, context: SettleContext): Promise<Settled> {
  let probe = await page.evaluate(`(${PROBE_SCRIPT})()`) as Probe;
  if (isStatic(probe)) {
    // Static, unless data or images still on the way (a skeleton waiting for its data) change
    // that once they arrive.
    if (!await context.idle(Math.min(context.budgetEnd, performance.now() + NETWORK_MS))) {
      return { advanced: false, still: true };
    }
    probe = await page.evaluate(`(${PROBE_SCRIPT})()`) as Probe;
    // Still static, but what arrived (or is still arriving) may be what makes it visible.
    if (isStatic(probe)) return { advanced: false, still: false };
  }
  // Reveals triggered by what is in view start before page time runs (see observersSeen).
  if (probe.observes) await observersSeen(page, context.budgetEnd);
  const cdp = probe.active ? await page.createCDPSession() : null;
  try {
    await settleCourse(page, context, {
      cdp,
      budgetMs: VIRTUAL_BUDGET_MS,
      networkUntil: () => Math.min(context.budgetEnd, performance.now() + NETWORK_MS),
    });
    return { advanced: cdp !== null, still: false };
  } finally {
    await cdp?.detach().catch(() => {});
  }
}

/**
 * The settle at a scroll position just reached on a full page: the scroll is seen (events, and
 * the page's observers told of it), then page time, the network and images of this screen, and
 * animations finished. A page that neither ticks nor watches the viewport pays one probe only.
 */
export async function settleBand(page: Page, context: SettleContext): Promise<void> {
  const probe = await page.evaluate(`(${PROBE_SCRIPT})()`) as Probe;
  if (isStatic(probe) && !probe.observes) return;
  await page.evaluate(`(${NUDGE_EVENTS_SCRIPT})()`);
  // Also for a page that only observes: once a budget is spent its clock stands still, and
  // page time must run for observer callbacks and the transitions they start.
  const cdp = await page.createCDPSession();
  try {
    // The walk runs past the capture budget (scroll_shot.ts bounds it): OBSERVERS_MS only.
    await observersSeen(page, Infinity, cdp);
    await settleCourse(page, context, {
      cdp,
      budgetMs: BAND_BUDGET_MS,
      // The walk bounds itself (scroll_shot.ts); each screen gets its own short network wait.
      networkUntil: () => performance.now() + BAND_NETWORK_MS,
    });
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/**
 * The course both settles run: page time (when there is a session to run it), what the network
 * still brings until `networkUntil()`, the images of the screen, page time again for their load
 * handlers, and animations finished.
 */
async function settleCourse(
  page: Page,
  context: SettleContext,
  course: { cdp: CDPSession | null; budgetMs: number; networkUntil: () => number },
): Promise<void> {
  const { cdp } = course;
  if (cdp) await advance(page, cdp, course.budgetMs);
  await context.idle(course.networkUntil());
  await assets(page, page.viewport()?.height ?? 0);
  if (cdp) await advance(page, cdp, LATE_BUDGET_MS);
  await page.evaluate(`(${FINISH_ANIMATIONS_SCRIPT})()`);
}

/**
 * Waits until the page's IntersectionObserver callbacks for the current scroll position have run
 * (a condition, not a number of frames: under load a frame takes longer than any fixed guess),
 * at most until OBSERVERS_MS from now or `until`, whichever is sooner; best attempt. Once page
 * time was advanced its clock stands still, and so do the browser's frames and the callbacks:
 * with `cdp`, page time then runs in short steps until they came.
 */
async function observersSeen(page: Page, until: number, cdp?: CDPSession): Promise<void> {
  const end = Math.min(performance.now() + OBSERVERS_MS, until);
  if (end <= performance.now()) return;
  let seen = false;
  const waiting = page.evaluate(`(${OBSERVERS_SEEN_SCRIPT})()`).catch(() => {})
    .finally(() => seen = true);
  if (cdp) {
    while (!seen && performance.now() < end) {
      await advance(page, cdp, OBSERVER_STEP_MS);
    }
  }
  await withTimeout(waiting, Math.max(0, end - performance.now()), () => new Error("not seen"))
    .catch(() => {});
}

/** Nothing could still change the picture: no pending timer, frame callback or animation. */
function isStatic(probe: Probe): boolean {
  return !probe.active && probe.animations === 0;
}

/** A second, shorter settle for a frame that came out blank: more network, time and assets. */
export async function settleAgain(page: Page, context: SettleContext): Promise<void> {
  await context.idle(Math.min(context.budgetEnd, performance.now() + NETWORK_MS));
  const cdp = await page.createCDPSession();
  try {
    await advance(page, cdp, LATE_BUDGET_MS);
    await assets(page, page.viewport()?.height ?? 0);
    await page.evaluate(`(${FINISH_ANIMATIONS_SCRIPT})()`);
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** Runs page time for `budgetMs` with the frame pump on, bounded in wall-clock time. */
async function advance(page: Page, cdp: CDPSession, budgetMs: number): Promise<void> {
  const expired = new Promise<void>((resolve) =>
    cdp.once("Emulation.virtualTimeBudgetExpired", () => resolve())
  );
  await page.evaluate(`(${PUMP_SCRIPT})()`);
  await cdp.send("Emulation.setVirtualTimePolicy", { policy: "advance", budget: budgetMs });
  try {
    await withTimeout(expired, VIRTUAL_WALL_MS, () => new Error("virtual time budget"));
  } catch {
    // The page kept the CPU busy: stop its clock where it is; that frame is shot.
    await cdp.send("Emulation.setVirtualTimePolicy", { policy: "pause" }).catch(() => {});
  }
  await page.evaluate(`(${STOP_PUMP_SCRIPT})()`).catch(() => {});
}

/** Lazy images inside the shot loaded and decoded, web fonts ready; bounded, best attempt. */
async function assets(page: Page, height: number): Promise<void> {
  await withTimeout(
    page.evaluate(`(${ASSETS_SCRIPT})(${Math.ceil(height)})`),
    ASSETS_MS,
    () => new Error("assets"),
  ).catch(() => {});
}
