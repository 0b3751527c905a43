/**
 * The scrolling recording of a loaded, settled page at its viewport: the real viewport is scrolled
 * to each frame's planned position (recording_plan.ts) and the frame Chromium draws there is
 * taken from its screencast (the compositor's own frame, JPEG, no forced redraw: about half the
 * cost of a screenshot per frame here), so fixed elements sit where a person scrolling sees them.
 * Each frame goes to the encoder as it is taken, at time i/fps whatever the shot cost: frames
 * are evenly spaced by construction. Page time runs one frame interval per frame (virtual time),
 * so the page's timers, observers and lazy loaders move with the recording, not with the wall
 * clock. Held frames repeat the last one without asking the browser again. At a device pixel
 * ratio other than 1 every frame is a screenshot instead (the screencast draws in CSS px).
 */
import type { CDPSession, Page, Protocol } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import type { VideoEncoder } from "../../codecs/video_encoder.ts";
import type { RecordingOptions, VideoFormat } from "../request/output.ts";
import { PageFailure } from "./page_failure.ts";
import { unrollScrollContainer } from "./full_page.ts";
import { LOAD_IMAGES_SCRIPT } from "./settle_scripts.ts";
import { planScroll } from "./recording_plan.ts";

export interface RecordingRequest {
  format: VideoFormat;
  recording: Required<RecordingOptions>;
  /** The capture's device pixel ratio: frames are viewport x scale device px. */
  scale: number;
  encoder: VideoEncoder;
  /** performance.now() after which the recording is given up (PageFailure recording_timeout). */
  budgetEnd: number;
}

export interface Recorded {
  bytes: Uint8Array;
  frames: number;
  durationMs: number;
  width: number;
  height: number;
}

// JPEG quality of the screencast frames: the encoder compresses again, so near-lossless input
// keeps text sharp; 90 costs no more time than 80 here.
const FRAME_QUALITY = 90;
// A frame at a new position normally arrives within a few hundred ms; past this (nothing was
// damaged, or the compositor is stuck) the viewport is shot directly instead.
const FRAME_WAIT_MS = 1_500;
// Images in view that are still loading get this long (wall clock) before the frame is taken;
// the timeline is unaffected (frame times are i/fps), only the recording's cost.
const IMAGES_WAIT_MS = 250;
// One frame interval of page time must elapse within this much wall-clock time; a page that keeps
// the CPU busy longer is recorded as it is.
const PAGE_TIME_WALL_MS = 1_000;

// Runs in the page: scrolls the document to `y` at once (the page's smooth scrolling ignored)
// and returns where it landed, how tall the document now is, and how many images in view are
// still loading. It returns a value on purpose: an evaluation of a bare scrollTo under paused
// virtual time did not answer here.
const SCROLL_SCRIPT = `(y) => {
  scrollTo({ top: y, left: 0, behavior: "instant" });
  const loading = [...document.images].filter((img) => {
    if (img.complete) return false;
    const r = img.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
  }).length;
  return [Math.round(scrollY), Math.max(document.documentElement.scrollHeight,
    document.body ? document.body.scrollHeight : 0), loading];
}`;

// Runs in the page: resolves once the images in view are loaded and decoded (the caller bounds
// it); decodes wait on the network and the decoder, never on a page timer.
const IMAGES_IN_VIEW_SCRIPT = `() => Promise.all((${LOAD_IMAGES_SCRIPT})(innerHeight))
  .then(() => true)`;

/** Records the page scrolling top to bottom (see the module comment). */
export async function recordScroll(page: Page, request: RecordingRequest): Promise<Recorded> {
  const { recording, encoder } = request;
  const viewport = page.viewport();
  if (!viewport) throw new Error("the page has no viewport");
  const frameMs = 1000 / recording.fps;
  const cdp = await page.createCDPSession();
  const screencast = screencastFrames(cdp);
  try {
    await unrollScrollContainer(page);
    // Lazy images anywhere in the document start loading now, long before they are scrolled to.
    await page.evaluate(`(() => { (${LOAD_IMAGES_SCRIPT})(1e9); return true; })()`);
    const [, height] = await scrollTo(page, 0);
    const planned = Math.max(0, height - viewport.height);
    const plan = planScroll(recording, { distance: planned, screen: viewport.height });
    const side = (css: number) => Math.round(css * request.scale);
    // The screencast draws frames in CSS px whatever the device pixel ratio: at another scale
    // every frame is a screenshot (slower, but at the capture's resolution).
    const fromScreencast = request.scale === 1;
    if (fromScreencast) {
      await cdp.send("Page.startScreencast", {
        format: "jpeg",
        quality: FRAME_QUALITY,
        everyNthFrame: 1,
      });
    }
    let last: { y: number; frame: Uint8Array } | null = null;
    let distance = planned;
    let pageTimeOwed = 0;
    // The frame before is handed to ffmpeg while the next one is drawn.
    let writing = Promise.resolve();
    const write = async (frame: Uint8Array) => {
      await writing;
      writing = encoder.write(frame);
      writing.catch(() => {}); // awaited before the next write or the finish
    };
    for (const planY of plan) {
      if (performance.now() > request.budgetEnd) {
        throw new PageFailure({ kind: "recording_timeout" });
      }
      // Lazy content may have made the page taller: the rest of the plan stretches to reach
      // the new bottom.
      const y = planned > 0 ? Math.round(planY * distance / planned) : 0;
      pageTimeOwed += frameMs;
      if (last && y === last.y) {
        await write(last.frame);
        continue;
      }
      const since = screencast.mark();
      const [at, nowHeight, loading] = await scrollTo(page, y);
      distance = Math.max(0, nowHeight - viewport.height);
      if (loading > 0) await imagesInView(page);
      // Page time runs after the scroll, so observers and scroll handlers see the new position,
      // while the compositor draws it; never beside a screenshot (the two together stalled
      // Chromium here).
      const ticked = last ? runPageTime(cdp, pageTimeOwed) : Promise.resolve();
      pageTimeOwed = 0;
      // The first frame is a screenshot of the top, like a viewport capture's; the others come
      // from the screencast, or a shot when none arrives.
      let frame: Uint8Array | null = null;
      if (last && at === last.y) frame = last.frame;
      else if (last && fromScreencast) frame = await screencast.frameAt(at, since);
      await ticked;
      frame ??= last ? await shotWhileTimeRuns(page, cdp) : await shotAt(page);
      await write(frame);
      last = { y: at, frame };
    }
    await writing;
    const bytes = await encoder.finish();
    const evenSide = (px: number) => request.format === "gif" ? px : px - (px % 2);
    return {
      bytes,
      frames: plan.length,
      durationMs: Math.round(plan.length * frameMs),
      width: evenSide(side(viewport.width)),
      height: evenSide(side(viewport.height)),
    };
  } catch (error) {
    encoder.abort();
    throw error;
  } finally {
    screencast.stop();
    await cdp.send("Page.stopScreencast").catch(() => {});
    await cdp.detach().catch(() => {});
  }
}

async function scrollTo(page: Page, y: number): Promise<[number, number, number]> {
  return await page.evaluate(`(${SCROLL_SCRIPT})(${y})`) as [number, number, number];
}

/** Images in view loaded and decoded, bounded; a best attempt. */
async function imagesInView(page: Page): Promise<void> {
  await withTimeout(
    page.evaluate(`(${IMAGES_IN_VIEW_SCRIPT})()`),
    IMAGES_WAIT_MS,
    () => new Error("images"),
  ).catch(() => {});
}

/** Runs `ms` of page time (virtual time), bounded in wall-clock time; best attempt. */
async function runPageTime(cdp: CDPSession, ms: number): Promise<void> {
  const expired = new Promise<void>((resolve) =>
    cdp.once("Emulation.virtualTimeBudgetExpired", () => resolve())
  );
  try {
    await cdp.send("Emulation.setVirtualTimePolicy", {
      policy: "advance",
      budget: Math.max(1, Math.round(ms)),
    });
    await withTimeout(expired, PAGE_TIME_WALL_MS, () => new Error("page time"));
  } catch {
    // The page kept the CPU busy: its clock stops where it is and the frame is taken as it is.
    await cdp.send("Emulation.setVirtualTimePolicy", { policy: "pause" }).catch(() => {});
  }
}

/**
 * A screenshot once page time has run for this frame: a page whose virtual clock is paused draws
 * no new frame, so a screenshot would wait for one forever. The clock runs while it is taken
 * (its wall-clock time is added to the page's, at scales other than 1 only), then stops again.
 */
async function shotWhileTimeRuns(page: Page, cdp: CDPSession): Promise<Uint8Array> {
  await cdp.send("Emulation.setVirtualTimePolicy", { policy: "advance" });
  try {
    return await shotAt(page);
  } finally {
    await cdp.send("Emulation.setVirtualTimePolicy", { policy: "pause" }).catch(() => {});
  }
}

/** The viewport shot directly (at the page's device pixel ratio, which puppeteer applies). */
async function shotAt(page: Page): Promise<Uint8Array> {
  const shot = await withTimeout(
    page.screenshot({ type: "jpeg", quality: FRAME_QUALITY, optimizeForSpeed: true }),
    FRAME_WAIT_MS * 4,
    () => new PageFailure({ kind: "no_paint" }),
  );
  return new Uint8Array(shot);
}

interface Screencast {
  /** A mark to pass to frameAt: only frames that arrive after it count. */
  mark(): number;
  /** The newest frame drawn at scroll position `y` since `mark`, waiting (bounded) for one. */
  frameAt(y: number, mark: number): Promise<Uint8Array | null>;
  stop(): void;
}

/** Collects the screencast's frames, acknowledging each so Chromium sends the next. */
function screencastFrames(cdp: CDPSession): Screencast {
  let received = 0;
  let latest: { seq: number; y: number; data: string } | null = null;
  let waiter: (() => void) | null = null;
  const onFrame = (event: Protocol.Page.ScreencastFrameEvent) => {
    cdp.send("Page.screencastFrameAck", { sessionId: event.sessionId }).catch(() => {});
    latest = { seq: ++received, y: Math.round(event.metadata.scrollOffsetY), data: event.data };
    waiter?.();
  };
  cdp.on("Page.screencastFrame", onFrame);
  const matching = (y: number, mark: number) =>
    latest && latest.seq > mark && latest.y === y ? latest.data : null;
  return {
    mark: () => received,
    async frameAt(y, mark) {
      const end = performance.now() + FRAME_WAIT_MS;
      let data = matching(y, mark);
      while (!data && performance.now() < end) {
        const next = new Promise<void>((resolve) => waiter = resolve);
        await withTimeout(next, end - performance.now(), "frame").catch(() => {});
        waiter = null;
        data = matching(y, mark);
      }
      return data ? Uint8Array.fromBase64(data) : null;
    },
    stop: () => cdp.off("Page.screencastFrame", onFrame),
  };
}
