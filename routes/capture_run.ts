/**
 * One capture request from its validated fields to the service's answer, shared by
 * POST /api/screenshot and GET /api/render: the plan, the target and the checks that come
 * before the quota, the per-IP charge, the screenshot service, and the refund of a capture
 * refused before any work.
 */
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import {
  checkDocumentNotBlocked,
  hasOptions,
  type ImageFormat,
  type OutputFormat,
  outputKind,
  parseTargetUrl,
  planCapture,
  refusedBeforeWork,
  requireAnnoyances,
  requireEngine,
  requireVideoEncoder,
  targetLogFields,
  type VideoFormat,
  viewportOf,
} from "../lib/capture/mod.ts";
import { ApiError, invalidRequest, invalidUrl } from "../lib/errors.ts";
import type { AppDeps, AppEnv } from "../lib/http/app_env.ts";
import type { LogFields } from "../lib/log.ts";
import type { FramedImage } from "../lib/frame/framer.ts";
import { type CaptureCharge, enforceCaptureRateLimit } from "../lib/http/rate_limit.ts";
import { validationError } from "../lib/http/router.ts";
import { traced } from "../lib/telemetry/trace.ts";
import type { ScreenshotRequestSchema } from "./screenshot_schemas.ts";
import type { AnsweredCapture } from "./screenshot_answer.ts";
import { frameCapture, refuseFrameOf, unencoded } from "./screenshot_frame.ts";

/** A capture request as the schema leaves it. */
export type ScreenshotRequest = z.output<typeof ScreenshotRequestSchema>;

/**
 * Who pays the per-IP limit: `every-request` counts cache hits too (POST /api/screenshot);
 * `renders-only` answers a capture the cache holds without counting it (GET /api/render).
 */
export type Charging = "every-request" | "renders-only";

/** The URL to capture: the parsed `url`, or about:blank for `html`; 400 unless exactly one. */
function targetOf(
  target: { url?: string; html?: string },
  allowPrivateNetwork: boolean,
): string {
  if ((target.url === undefined) === (target.html === undefined)) {
    const both = target.url !== undefined;
    throw invalidRequest(both ? "Send url or html, not both." : "url is required.", {
      hint: "Send exactly one of url (a page to load) and html (a document to render).",
    });
  }
  if (target.html !== undefined) return "about:blank";
  return parseTargetUrl(target.url!, { allowPrivateNetwork });
}

/** The 400 of a request the schema refused; a url of the wrong type is a bad URL, not a missing one. */
export function refuseCapture(issues: z.core.$ZodIssue[], input: unknown): never {
  const issue = issues[0];
  const sentUrl = (input as { url?: unknown } | null)?.url;
  if (issue?.path[0] === "url" && issue.code === "invalid_type" && sentUrl !== undefined) {
    throw invalidUrl("url must be a string holding an absolute URL.", {
      hint: 'Send url as a JSON string, e.g. "https://example.com".',
    });
  }
  throw validationError(issues, input);
}

/** What a capture needs from its caller: the HTTP request, or a job's worker. */
export interface CaptureCall {
  deps: AppDeps;
  /** Aborts the capture (the client went away, the job was cancelled). */
  signal?: AbortSignal;
  /** Fields added to the caller's log line (cache, strategy, the target's host). */
  logFields: LogFields;
  /**
   * Counts the capture against its client's limit, after validation; null when the caller has
   * admitted it already (a job's items are paced before they run).
   */
  admit: (() => Promise<CaptureCharge>) | null;
  /** `renders-only`: a capture the cache holds is answered without calling `admit`. */
  charging: Charging;
}

/** A capture as answered, and its frame when the request asked for one. */
export interface TakenCapture extends AnsweredCapture {
  framed: FramedImage | null;
}

/** The checks of `request` that need no page: its target and the optional parts it uses. */
export async function prepareCapture(
  deps: AppDeps,
  request: ScreenshotRequest,
  format: OutputFormat,
) {
  const { config, adFilters, videoEncoders } = deps;
  const { url: sentUrl, html, frame, ...fields } = request;
  const plan = planCapture(
    { ...fields, html, format },
    { cacheTtlSeconds: config.CACHE_TTL_SECONDS },
  );
  if (frame) refuseFrameOf(format);
  const { deviceType, colorScheme, credentials } = plan;
  // A framed capture is shot as the plain PNG (one cache entry with unframed requests) and
  // encoded in the asked format once framed.
  const captureOptions = frame ? unencoded(plan.options) : plan.options;
  const url = targetOf({ url: sentUrl, html }, config.ALLOW_PRIVATE_NETWORK);
  // An html document is written into the page, never requested: nothing to block.
  if (html === undefined) checkDocumentNotBlocked(captureOptions.blockRequests, url);
  // Before the quota: a capture that cannot block ads would only waste the client's turn.
  if (request.blockAds) requireEngine(adFilters);
  if (request.hideAnnoyances) requireAnnoyances(adFilters);
  if (outputKind(format) === "video") {
    await requireVideoEncoder(videoEncoders, format as VideoFormat);
  }
  const job = {
    url,
    ...(html !== undefined ? { html } : {}),
    deviceType,
    colorScheme,
    ...(hasOptions(captureOptions) ? { options: captureOptions } : {}),
    ...(credentials ? { credentials } : {}),
  };
  return { plan, job, frame, format, captureOptions };
}

/** Takes the capture `request` asks for in `format`, charging the client as `call` says. */
export async function takeCapture(
  call: CaptureCall,
  request: ScreenshotRequest,
  format: OutputFormat,
): Promise<TakenCapture> {
  const { screenshots, framer } = call.deps;
  let outcome;
  let charge: CaptureCharge | undefined;
  let prepared;
  try {
    prepared = await prepareCapture(call.deps, request, format);
    const { plan, job, captureOptions } = prepared;
    Object.assign(call.logFields, await targetLogFields(job.url));
    const take = { ...plan.take, signal: call.signal };
    // A capture the cache already holds renders nothing, so it need not cost a turn.
    const held = call.charging === "renders-only" ? await screenshots.peek(job, take) : null;
    // After validation, so refused requests do not use up the client's quota.
    if (!held && call.admit) charge = await call.admit();
    const attributes = {
      deviceType: job.deviceType,
      colorScheme: job.colorScheme,
      forceRefresh: plan.take.forceRefresh,
      scale: captureOptions.scale ?? 1,
      fullPage: captureOptions.fullPage ?? false,
      format,
      // Whether the capture was private; never what it carried.
      credentials: plan.credentials !== undefined,
    };
    outcome = await traced("capture", attributes, async (span) => {
      const taken = held ?? await screenshots.take(job, take);
      span.setAttributes({ cached: taken.cached, backend: taken.strategy });
      return taken;
    });
  } catch (error) {
    // Why a target was refused is the operator's to know, not the caller's.
    if (error instanceof ApiError) Object.assign(call.logFields, error.logDetail);
    // A capture the render queue would not take did no work: it costs the client nothing.
    if (refusedBeforeWork(error)) await charge?.refund();
    throw error;
  }
  const cache = outcome.cached ? "hit" : "miss";
  Object.assign(call.logFields, { cache, strategy: outcome.strategy });
  const { job, frame, plan, captureOptions } = prepared;
  const framed = frame
    ? await frameCapture(framer, outcome, frame, {
      url: job.url,
      pixelRatio: viewportOf(job.deviceType, captureOptions).scale,
      format: format as ImageFormat,
      quality: plan.options.quality,
    })
    : null;
  return {
    ...outcome,
    ...(framed ? { image: framed.bytes } : {}),
    format,
    url: job.url,
    deviceType: job.deviceType,
    colorScheme: job.colorScheme,
    framed,
  };
}

/** Takes the capture of an HTTP request, charging the client's IP as `charging` says. */
export function runCapture(
  c: Context<AppEnv>,
  request: ScreenshotRequest,
  options: { format: OutputFormat; charging: Charging },
): Promise<TakenCapture> {
  return takeCapture(
    {
      deps: c.var.deps,
      signal: c.req.raw.signal,
      logFields: c.var.logFields,
      admit: () => enforceCaptureRateLimit(c),
      charging: options.charging,
    },
    request,
    options.format,
  );
}
