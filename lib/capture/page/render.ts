/**
 * The wait ladder of one capture: the document must commit and reach DOMContentLoaded within
 * the timeout; after that every wait is bounded and the capture is a best attempt of what is
 * there, never a failure.
 */
import type { FiltersEngine } from "@ghostery/adblocker";
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import type { CaptureOptions, ImageFormat } from "../request/options.ts";
import type { PageMetadata } from "../types.ts";
import { readPageMetadata } from "./metadata.ts";
import type { Credentials } from "../request/credentials.ts";
import { finishOptions, prepareOptions, waitForOption } from "./apply_options.ts";
import {
  EGRESS_MARKER_HEADER,
  type EgressRefusal,
  type RefusalLog,
  RefusedDestination,
} from "../../egress/types.ts";
import { PageFailure } from "./page_failure.ts";
import { sendCredentials } from "./credentials.ts";
import { unbracket } from "../../egress/address.ts";
import { type NetworkTracker, trackNetwork } from "./network.ts";
import { traced } from "../../telemetry/trace.ts";
import type { Logger } from "../../log.ts";
import {
  prepareSettle,
  settleAgain,
  type SettleContext,
  type Settled,
  settlePage,
} from "./settle.ts";
import { isBlankFrame } from "./blank_frame.ts";
import type { ShotArea } from "./full_page.ts";

// Extra time after DOMContentLoaded for load, lazy images, fonts and network quiet.
const SETTLE_BUDGET_MS = 5_000;
// In-viewport images and web fonts get this much of the settle budget at most.
const ASSETS_BUDGET_MS = 3_000;
// A page whose main thread never yields cannot paint; give up on it rather than hang.
const SCREENSHOT_TIMEOUT_MS = 10_000;

export interface Rendered {
  /** The image, in options.format (png unless it says otherwise). */
  png: Uint8Array;
  targetStatus: number | null;
  /** What the page says about itself, read once it settled (metadata.ts). */
  page?: PageMetadata;
  /** A full page or element was cut at the size cap. */
  truncated?: boolean;
}

export interface RenderRequest {
  // Only its refusals are read: the remote backend passes its request guard here.
  session: RefusalLog;
  url: string;
  /** A document rendered instead of loading `url` (about:blank). */
  html?: string;
  /** CAPTURE_TIMEOUT_MS: the document's budget, and the budget of every option's wait. */
  timeoutMs: number;
  options?: CaptureOptions;
  /** The ad filter engine (blockAds hides ad slots with it). */
  engine?: FiltersEngine | null;
  /** Cookies and headers for the target's origin only (page/credentials.ts). */
  credentials?: Credentials;
  /** The annoyance filter engine (hideAnnoyances hides chat widgets and pop-ups with it). */
  annoyances?: FiltersEngine | null;
  /** The capturer's logger: a blank frame shot again is reported there. */
  log?: Logger;
}

/**
 * Navigates, settles, applies the options and shoots (the viewport unless an option says
 * otherwise); throws typed failures (PageFailure, RefusedDestination) and browser errors, which
 * captureFailure maps to API errors.
 */
export async function render(page: Page, request: RenderRequest): Promise<Rendered> {
  const { session, url, timeoutMs, options = {}, engine, annoyances, log } = request;
  const budgetEnd = performance.now() + timeoutMs;
  const network = trackNetwork(page, url);
  const settle = options.settle !== false;
  let sender: { stop(): Promise<void> } | null = null;
  try {
    // Only a capture with credentials intercepts for them: a plain one pays nothing.
    if (request.credentials) {
      sender = await sendCredentials(page, { url, credentials: request.credentials });
    }
    await prepareOptions(page, options);
    if (settle) await prepareSettle(page);
    // [api: html] An html job writes its document into the page's about:blank instead of
    // navigating: no main response, so no target status; its subresources load like a page's.
    const response = await traced(
      "capture.navigation",
      {},
      () =>
        request.html !== undefined
          ? page.setContent(request.html, { waitUntil: "domcontentloaded", timeout: timeoutMs })
            .then(() => null)
          : page.goto(url, { waitUntil: "domcontentloaded", timeout: timeoutMs }),
    );
    network.mainResponse ??= response;
    rejectProxyAnswer(network, session);
    const deadline = performance.now() + SETTLE_BUDGET_MS;
    await traced("capture.readiness_wait", {}, async () => {
      await settleAssets(page, Math.min(ASSETS_BUDGET_MS, SETTLE_BUDGET_MS));
      await waitForOption(page, options, budgetEnd);
      await network.quiet(deadline);
    });
    // A script may have navigated after DOMContentLoaded; judge the document we will shoot.
    rejectProxyAnswer(network, session);
    if (page.mainFrame().url().startsWith("chrome-error:")) {
      throw new Error(`net::ERR_FAILED after a later navigation of ${url}`);
    }
    let outcome: Settled | null = null;
    const settling: SettleContext = {
      fullPage: options.fullPage === true,
      budgetEnd,
      idle: (until) => network.idle(until),
    };
    const { clip, truncated } = await finishOptions(page, {
      options,
      engine,
      annoyances,
      budgetEnd,
      ...(settle && { settle: async () => (outcome = await settled(page, settling)) }),
    });
    const transparent = options.transparent === true;
    // [api: metadata] Read once the page settled and the options were applied, before the shot.
    const metadata = await traced("capture.metadata", {}, () => readPageMetadata(page));
    // [api: format] The shot is encoded by Chromium in the asked format and quality.
    const encoding = { format: options.format ?? "png", quality: options.quality };
    let png = await shoot(page, { clip, transparent, ...encoding });
    // A page still fading in as a whole, past what the settle could bring about: once more.
    // A page still from the start (nothing pending, animating or in flight) shows what it is:
    // a flat frame is its real look.
    const still = (outcome as Settled | null)?.still ?? false;
    if (settle && !still && await isBlankFrame(page, png)) {
      log?.info("blank frame: shooting again after a second settle", {
        fullPage: settling.fullPage,
      });
      png = await traced("capture.blank_retry", {}, async () => {
        await settleAgain(page, settling).catch(() => {});
        return await shoot(page, { clip, transparent, ...encoding });
      });
    }
    return {
      png,
      page: metadata,
      targetStatus: network.mainResponse?.status() ?? null,
      ...(truncated ? { truncated } : {}),
    };
  } catch (error) {
    // Chromium reports a destination the proxy refused only as a generic tunnel or proxy error.
    const refusal = /net::ERR_/.test(String(error)) &&
      await awaitNavigationRefusal(network, session);
    throw refusal ? new RefusedDestination(refusal) : error;
  } finally {
    network.stop();
    await sender?.stop();
  }
}

/** The settle, traced; a best attempt: what fails in it leaves the page as it is. */
async function settled(page: Page, context: SettleContext): Promise<Settled> {
  return await traced("capture.settle", { fullPage: context.fullPage }, async (span) => {
    try {
      const result = await settlePage(page, context);
      span.setAttribute("advanced", result.advanced);
      return result;
    } catch {
      span.setAttribute("advanced", false);
      return { height: null, advanced: false, still: false };
    }
  });
}

/**
 * The image of the viewport, or of `clip` drawn beyond it, in `format` (Chromium encodes jpeg and
 * webp itself: no PNG to decode and encode again); a PageFailure when it cannot paint.
 */
async function shoot(
  page: Page,
  shot: { clip: ShotArea["clip"]; transparent: boolean; format: ImageFormat; quality?: number },
): Promise<Uint8Array> {
  const { clip, transparent, format, quality } = shot;
  const png = await withTimeout(
    traced("capture.screenshot", {}, () =>
      page.screenshot({
        type: format,
        ...(format !== "png" && quality !== undefined ? { quality } : {}),
        optimizeForSpeed: true,
        // A full page or element is drawn beyond the viewport without resizing it, so the
        // layout (100vh sections, fixed headers) stays what the viewport shows.
        ...(clip ? { clip, captureBeyondViewport: true } : { captureBeyondViewport: false }),
        // transparent: no default white behind the page, so the PNG keeps its alpha.
        ...(transparent ? { omitBackground: true } : {}),
      })),
    SCREENSHOT_TIMEOUT_MS,
    () => new PageFailure({ kind: "no_paint" }),
  );
  return new Uint8Array(png);
}

/** An answer the egress proxy wrote itself (refused destination) is an error, not a page. */
function rejectProxyAnswer(
  network: NetworkTracker,
  session: RefusalLog,
): void {
  // puppeteer gives header names in lower case.
  if (!network.mainResponse?.headers()[EGRESS_MARKER_HEADER.toLowerCase()]) return;
  const refusal = navigationRefusal(network, session);
  if (refusal) throw new RefusedDestination(refusal);
}

// puppeteer may deliver a redirect hop's request event after the navigation's failure. The hop's
// own failure event comes after its request event, so that is what is waited for; the bound only
// matters when no failure event comes at all (a busy machine can take well over 100 ms).
const HOP_EVENT_BOUND_MS = 2_000;

/** navigationRefusal, once the failed navigation's events (redirect hops included) are in. */
async function awaitNavigationRefusal(
  network: NetworkTracker,
  session: RefusalLog,
): Promise<EgressRefusal | undefined> {
  const until = performance.now() + HOP_EVENT_BOUND_MS;
  let refusal = navigationRefusal(network, session);
  // Only while some refusal is still unexplained: otherwise there is nothing to wait for.
  while (
    !refusal && session.refusals.length > 0 && !network.navigationFailed &&
    performance.now() < until
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    refusal = navigationRefusal(network, session);
  }
  return refusal;
}

/**
 * The latest refusal of a host the main frame navigated to (redirect hops included). Refusals
 * of other hosts do not explain a failed navigation: some Chromium versions send their own
 * background requests through the capture's proxy, and those are refused too.
 */
function navigationRefusal(
  network: NetworkTracker,
  session: RefusalLog,
): EgressRefusal | undefined {
  return session.refusals.findLast((r) => network.navigationHosts.has(unbracket(r.host)));
}

/**
 * Waits (bounded) for load, makes in-viewport lazy images load now (plus a scroll event for
 * script-driven lazy loaders), and waits for those images to decode and for web fonts.
 */
async function settleAssets(page: Page, budgetMs: number): Promise<void> {
  try {
    await withTimeout(
      page.evaluate(`(${SETTLE_SCRIPT})(${budgetMs})`),
      budgetMs + 1_000,
      () => new Error("settle timed out"),
    );
  } catch {
    // Best attempt: a page that navigates away or blocks its main thread is shot as it is.
  }
}

// Runs in the page (kept as text: the service is not type-checked against the DOM).
const SETTLE_SCRIPT = `async (budget) => {
  let timer;
  const timeout = new Promise((resolve) => timer = setTimeout(resolve, budget));
  const loaded = document.readyState === "complete"
    ? Promise.resolve()
    : new Promise((resolve) => addEventListener("load", resolve, { once: true }));
  await Promise.race([loaded, timeout]);
  const visible = [...document.images].filter((img) => {
    const r = img.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  });
  for (const img of visible) if (img.loading === "lazy") img.loading = "eager";
  dispatchEvent(new Event("scroll"));
  const images = visible.filter((img) => !img.complete).map((img) => img.decode().catch(() => {}));
  await Promise.race([Promise.all([...images, document.fonts.ready]), timeout]);
  // Cleared, so the settle does not count this wait as the page's own pending timer.
  clearTimeout(timer);
}`;
