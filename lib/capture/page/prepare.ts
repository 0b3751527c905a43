/**
 * The one preparation of a capture's page, for both backends: they differ only in how they get
 * a page and how its traffic is carried (the carrier below); the ad filter, the emulation, the
 * socket blocking and the render's request are the same for both, so they are written once here.
 */
import type { Page } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import type { RefusalLog } from "../../egress/types.ts";
import type { EgressRoute } from "../../egress/proxied_fetch.ts";
import type { AdFilters } from "../filter_lists.ts";
import type { VideoEncoders } from "../../codecs/video_encoder.ts";
import type { CaptureJob } from "../types.ts";
import { filtersFor, interceptRequests, type RequestBlocker } from "./adblock.ts";
import { applyEmulation } from "./emulation.ts";
import { blockSockets } from "./request_blocking.ts";
import { render, type Rendered } from "./render.ts";

/** How a backend carries one capture's traffic, as the page's preparation needs to know it. */
export interface TrafficCarrier {
  /** What the boundary refused, read when a load fails (the proxy session, or the guard). */
  refusals: RefusalLog;
  /**
   * Installs the page's one request interception, the ad filter's test (`blocked`) inside it.
   * Absent: the boundary sits outside the page (the egress proxy), so the ad filter intercepts
   * alone, and only when the job blocks something.
   */
  intercept?: (page: Page, blocked: RequestBlocker | undefined) => Promise<void>;
  /** The route of what the service loads for the page itself (its favicon). */
  iconRoute: EgressRoute;
}

export interface PreparedCapture {
  /** The capture's own page, in a context that is closed after it. */
  page: Page;
  job: CaptureJob;
  carrier: TrafficCarrier;
  /** CAPTURE_TIMEOUT_MS. */
  timeoutMs: number;
  /** The filter lists behind blockAds and hideAnnoyances. */
  adFilters?: AdFilters;
  /** ffmpeg's encoders, for a recording. */
  videoEncoders?: VideoEncoders;
  log: Logger;
}

/**
 * Prepares the page for the job (ad filter inside the carrier's interception, emulation, socket
 * blocking) and renders it; throws what render.ts throws.
 */
export async function renderPrepared(capture: PreparedCapture): Promise<Rendered> {
  const { page, job, carrier, timeoutMs, log } = capture;
  const { engine, blocked, annoyances, blockedBy } = filtersFor(page, {
    options: job.options,
    filters: capture.adFilters,
  });
  if (carrier.intercept) await carrier.intercept(page, blocked);
  else if (blocked) await interceptRequests(page, blocked);
  // Per capture, on this capture's page only: its context is closed after it.
  await applyEmulation(page, job);
  await blockSockets(page, job.options);
  return await render(page, {
    session: carrier.refusals,
    egress: carrier.iconRoute,
    url: job.url,
    html: job.html,
    timeoutMs,
    options: job.options,
    engine,
    credentials: job.credentials,
    annoyances,
    log,
    videoEncoders: capture.videoEncoders,
    blockedBy,
  });
}
