/**
 * The render orchestrator: one capture's ladder in one readable sequence, driven by the shot
 * plan computed once from its options (shot_plan.ts). Prepare, navigate (the document must commit
 * and reach DOMContentLoaded within the timeout), get ready, interact, settle, shoot. After
 * DOMContentLoaded every wait is bounded and the capture is a best attempt of what is there,
 * never a failure. The option helpers are leaves (apply_options.ts), the areas and the walk of a
 * full page live in full_page.ts and scroll_shot.ts, the settle in settle.ts.
 */
import type { FiltersEngine } from "@ghostery/adblocker";
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import type { CaptureOptions } from "../request/options.ts";
import type { OutputFacts, OutputFormat } from "../request/output.ts";
import type { PageMetadata } from "../types.ts";
import { readPageMetadata } from "./metadata.ts";
import { FAVICON_BUDGET_MS, faviconLoads } from "./favicon.ts";
import type { EgressRoute } from "../../egress/proxied_fetch.ts";
import type { Credentials } from "../request/credentials.ts";
import {
  awaitConsentReload,
  hideElements,
  interact,
  prepareOptions,
  remaining,
  waitForOption,
} from "./apply_options.ts";
import { type RefusalLog, RefusedDestination } from "../../egress/types.ts";
import { awaitNavigationRefusal, rejectProxyAnswer } from "./refusals.ts";
import { PageFailure } from "./page_failure.ts";
import { sendCredentials } from "./credentials.ts";
import { trackNetwork } from "./network.ts";
import { traced } from "../../telemetry/trace.ts";
import type { Logger } from "../../log.ts";
import {
  prepareSettle,
  settleAgain,
  settleBand,
  type SettleContext,
  type Settled,
  settlePage,
} from "./settle.ts";
import { LOADED_SCRIPT } from "./settle_scripts.ts";
import { isBlankFrame } from "./blank_frame.ts";
import {
  clipArea,
  elementArea,
  fullPageArea,
  LAZY_HINTS_SCRIPT,
  nudgeLazyContent,
  unrollScrollContainer,
} from "./full_page.ts";
import { JOINED_FORMAT, planShot, type ShotPlan } from "./shot_plan.ts";
import { shootArea, shootViewport, type Shot, type ShotStyle } from "./shoot.ts";
import { scrollShot } from "./scroll_shot.ts";
import { type TakenOutput, takeOutput } from "./take_output.ts";
import type { VideoEncoders } from "../../codecs/video_encoder.ts";
import type { CaptureReport } from "../report.ts";
import type { BlockedBy } from "./adblock.ts";
import { type PageReport, startPageReport } from "./page_report.ts";

// Extra time after DOMContentLoaded for load, lazy images, fonts and network quiet.
const SETTLE_BUDGET_MS = 5_000;
// In-viewport images and web fonts get this much of the settle budget at most.
const ASSETS_BUDGET_MS = 3_000;
// Scrolling through a long unsettled page for lazy content, and waiting for its images.
const NUDGE_BUDGET_MS = 3_000;
// A settled full page settles at each scroll position for at least this long overall, even when
// the page's load used up most of the capture budget; later screens are shot as they are.
const WALK_SETTLE_MS = 8_000;

export interface Rendered {
  /** The capture's bytes, in `format`: an image, a PDF, a recording or text. */
  image: Uint8Array;
  /**
   * The format it was taken in: the plan's, or JOINED_FORMAT where an image was joined from
   * several shots; who encodes it in the plan's format then is the plan's to say (shot_plan.ts,
   * encoderOf).
   */
  format: OutputFormat;
  /** A PDF's pages, a recording's size and length. */
  output?: OutputFacts;
  targetStatus: number | null;
  /** What the page says about itself, read once it settled (metadata.ts). */
  page?: PageMetadata;
  /** A full page, element or clip was cut (at the size cap, or to the document). */
  truncated?: boolean;
  /** What the render saw besides the picture, and what looks wrong with it (page_report.ts). */
  report: CaptureReport;
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
  /**
   * The egress proxy session through which the service loads what the page declares (its
   * favicon); without it the icon's bytes are left out.
   */
  egress?: EgressRoute;
  /** ffmpeg's encoders, for a recording (FFMPEG_PATH). */
  videoEncoders?: VideoEncoders;
  /** Which of the job's blockers dropped a request, for the report. */
  blockedBy?: BlockedBy;
}

/** What the shooting steps share: the page, its plan, the settle's context and outcome. */
interface ShotContext {
  page: Page;
  plan: ShotPlan;
  request: RenderRequest;
  settling: SettleContext;
  settled: Settled | null;
  report: PageReport;
}

/**
 * Navigates, settles, applies the options and shoots what the plan says; throws typed failures
 * (PageFailure, RefusedDestination) and browser errors, which capture/failures.ts maps to API
 * errors.
 */
export async function render(page: Page, request: RenderRequest): Promise<Rendered> {
  const { session, url, timeoutMs, options = {} } = request;
  const plan = planShot(options);
  const budgetEnd = performance.now() + timeoutMs;
  const network = trackNetwork(page, url);
  const report = startPageReport(page, { refusals: session, blockedBy: request.blockedBy });
  let sender: { stop(): Promise<void> } | null = null;
  try {
    // Prepare. Only a capture with credentials intercepts for them: a plain one pays nothing.
    if (request.credentials) {
      sender = await sendCredentials(page, { url, credentials: request.credentials });
    }
    await prepareOptions(page, options);
    if (plan.settled) await prepareSettle(page);
    else if (plan.target.kind === "full_page") {
      await page.evaluateOnNewDocument(LAZY_HINTS_SCRIPT);
    }
    // Navigate. An html job writes its document into the page's about:blank instead: no main
    // response, so no target status; its subresources load like a page's, through the boundary.
    const navigation = { waitUntil: "domcontentloaded", timeout: timeoutMs } as const;
    const response = await traced(
      "capture.navigation",
      {},
      () =>
        request.html !== undefined
          ? page.setContent(request.html, navigation).then(() => null)
          : page.goto(url, navigation),
    );
    network.mainResponse ??= response;
    rejectProxyAnswer(network, session);
    report.mark("navigation");
    // The icon the page declares now starts loading, behind the settle.
    const favicons = request.egress
      ? faviconLoads(
        page,
        { options, route: request.egress, timeoutMs: FAVICON_BUDGET_MS },
        request.log,
      )
      : null;
    favicons?.early();
    // Get ready.
    const deadline = performance.now() + SETTLE_BUDGET_MS;
    await traced("capture.readiness_wait", {}, async () => {
      if (!await loaded(page, Math.min(ASSETS_BUDGET_MS, SETTLE_BUDGET_MS))) report.ranOut("load");
      await waitForOption(page, options, budgetEnd);
      if (!await network.quiet(deadline)) report.ranOut("network_quiet");
    });
    // A script may have navigated after DOMContentLoaded; judge the document we will shoot.
    rejectProxyAnswer(network, session);
    if (page.mainFrame().url().startsWith("chrome-error:")) {
      throw new PageFailure({ kind: "error_page", url });
    }
    // Interact, settle.
    await interact(page, options, budgetEnd);
    const settling: SettleContext = { budgetEnd, idle: report.timedIdle(network) };
    const settled = plan.settled ? await settleTraced(page, settling) : null;
    // Once settled and before any scrolling: what the page says about itself.
    const metadata = await traced("capture.metadata", {}, () => readPageMetadata(page));
    // Its icon: the early load when the page still declares the same one.
    const favicon = favicons?.of(metadata.favicon);
    report.mark("settle");
    // Shoot (or print, record, read).
    const context: ShotContext = { page, plan, request, settling, settled, report };
    let shot;
    try {
      shot = await take(context);
    } catch (error) {
      // Some consent platforms reload the page once the choice is made: take the new document.
      if (!/Execution context was destroyed|Cannot find context/.test(String(error))) throw error;
      await awaitConsentReload(page, budgetEnd);
      shot = await take(context);
    }
    report.mark("shot");
    const targetStatus = network.mainResponse?.status() ?? null;
    return {
      image: shot.image,
      format: shot.format,
      ...("output" in shot && shot.output ? { output: shot.output } : {}),
      page: { ...metadata, faviconData: (await favicon?.take()) ?? null },
      targetStatus,
      ...(shot.truncated ? { truncated: true } : {}),
      report: report.finish({
        status: targetStatus,
        requestedUrl: url,
        ...(shot.truncated ? { truncatedAt: plan.maxSide } : {}),
      }),
    };
  } catch (error) {
    // Chromium reports a destination the proxy refused only as a generic tunnel or proxy error.
    const failedLoad = error instanceof PageFailure
      ? error.detail.kind === "error_page"
      : /net::ERR_/.test(String(error));
    const refusal = failedLoad && await awaitNavigationRefusal(network, session);
    throw refusal ? new RefusedDestination(refusal) : error;
  } finally {
    network.stop();
    report.stop();
    await sender?.stop();
  }
}

/** The plan's output: the target shot as an image, or the whole page printed, recorded, read. */
async function take(context: ShotContext): Promise<TakenOutput | Shot & { truncated: boolean }> {
  const { page, plan, request } = context;
  await hideElements(page, { ...request, options: request.options ?? {} });
  // What the shot will show, once hidden what the options hide: the report's findings.
  await context.report.readSignals();
  if (plan.output.kind === "image") return await shoot(context);
  return await takeOutput(page, plan.output, {
    timeoutMs: request.timeoutMs,
    videoEncoders: request.videoEncoders,
  });
}

/** Shoots the plan's target (what was asked is hidden by then). */
async function shoot(context: ShotContext): Promise<Shot & { truncated: boolean }> {
  const { page, plan, request, settling } = context;
  const { target, scale } = plan;
  const style: ShotStyle = {
    scale,
    transparent: plan.transparent,
    format: plan.format,
    ...(plan.quality !== undefined ? { quality: plan.quality } : {}),
  };
  const bounds = { scale, maxSide: plan.maxSide };
  switch (target.kind) {
    case "viewport": {
      const image = await guarded(context, () => shootViewport(page, style));
      return { image, format: style.format, truncated: false };
    }
    case "element":
    case "clip": {
      const area = target.kind === "element"
        ? await elementArea(page, { ...bounds, selector: target.selector })
        : await clipArea(page, { ...bounds, rect: target.rect });
      let shot = await shootArea(page, { clip: area.clip, style });
      if (await isBlank(context, shot.image)) {
        shot = await retried(context, () => shootArea(page, { clip: area.clip, style }));
      }
      return { ...shot, truncated: area.truncated };
    }
    case "full_page": {
      const unrolled = await unrollScrollContainer(page);
      if (unrolled) request.log?.info("full page: scroll container unrolled", unrolled);
      if (!plan.settled) {
        await nudgeLazyContent(page, {
          ...bounds,
          budgetMs: remaining(settling.budgetEnd, NUDGE_BUDGET_MS),
        });
        const area = await fullPageArea(page, bounds);
        return { ...await shootArea(page, { clip: area.clip, style }), truncated: area.truncated };
      }
      // The unrolled container's content reacts to being in view (its observers, lazy images).
      if (unrolled) await settleBand(page, settling);
      // Screens are joined: each is shot as PNG, and the whole encoded as the plan says.
      const screenStyle: ShotStyle = {
        scale,
        transparent: plan.transparent,
        format: JOINED_FORMAT,
      };
      return await traced("capture.scroll_shot", {}, async (span) => {
        const walked = await scrollShot(page, {
          style: screenStyle,
          maxSide: plan.maxSide,
          shootFirst: () => guarded(context, () => shootViewport(page, screenStyle)),
          settleHere: () => settleBand(page, settling),
          settleUntil: Math.max(settling.budgetEnd, performance.now() + WALK_SETTLE_MS),
        });
        span.setAttribute("screens", walked.screens);
        return { image: walked.png, format: JOINED_FORMAT, truncated: walked.truncated };
      });
    }
  }
}

/**
 * A settled shot that came out one flat colour while the page has content (still fading in as
 * a whole, past what the settle could bring about) is taken once more after a second settle. A
 * page still from the start (nothing pending, animating or in flight) shows what it is. Only a
 * PNG is judged (a jpeg or webp shot is taken once).
 */
async function guarded(
  context: ShotContext,
  take: () => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const image = await take();
  return await isBlank(context, image) ? await retried(context, take) : image;
}

async function isBlank(context: ShotContext, image: Uint8Array): Promise<boolean> {
  const { page, plan, settled } = context;
  return plan.settled && !settled?.still && await isBlankFrame(page, image);
}

async function retried<T>(context: ShotContext, take: () => Promise<T>): Promise<T> {
  const { page, plan, settling, request } = context;
  request.log?.info("blank frame: shooting again after a second settle", {
    target: plan.target.kind,
  });
  return await traced("capture.blank_retry", {}, async () => {
    await settleAgain(page, settling).catch(() => {});
    return await take();
  });
}

/** The settle, traced; a best attempt: what fails in it leaves the page as it is. */
async function settleTraced(page: Page, context: SettleContext): Promise<Settled> {
  return await traced("capture.settle", {}, async (span) => {
    try {
      const result = await settlePage(page, context);
      span.setAttribute("advanced", result.advanced);
      return result;
    } catch {
      span.setAttribute("advanced", false);
      return { advanced: false, still: false };
    }
  });
}

/**
 * Load (bounded), the viewport's lazy images and web fonts (see LOADED_SCRIPT); best attempt.
 * Whether they all came in time.
 */
async function loaded(page: Page, budgetMs: number): Promise<boolean> {
  let blocked = false;
  try {
    return await withTimeout(
      page.evaluate(`(${LOADED_SCRIPT})(${budgetMs})`),
      budgetMs + 1_000,
      () => (blocked = true, new Error("settle timed out")),
    ) !== false;
  } catch {
    // Best attempt: a page that navigates away or blocks its main thread is shot as it is.
    return !blocked;
  }
}
