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
} from "../lib/capture/mod.ts";
import { ApiError, invalidRequest, invalidUrl } from "../lib/errors.ts";
import type { AppEnv } from "../lib/http/app_env.ts";
import { type CaptureCharge, enforceCaptureRateLimit } from "../lib/http/rate_limit.ts";
import { validationError } from "../lib/http/router.ts";
import { traced } from "../lib/telemetry/trace.ts";
import type { ScreenshotRequestSchema } from "./screenshot_schemas.ts";
import type { AnsweredCapture } from "./screenshot_answer.ts";

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

/** Takes the capture `request` asks for in `format`, charging the client as `charging` says. */
export async function runCapture(
  c: Context<AppEnv>,
  request: ScreenshotRequest,
  options: { format: OutputFormat; charging: Charging },
): Promise<AnsweredCapture> {
  const { config, screenshots, adFilters, videoEncoders } = c.var.deps;
  const { format, charging } = options;
  const { url: sentUrl, html, ...fields } = request;
  const plan = planCapture(
    { ...fields, html, format },
    { cacheTtlSeconds: config.CACHE_TTL_SECONDS },
  );
  const { deviceType, colorScheme, options: captureOptions, credentials } = plan;
  let outcome;
  let url: string;
  let charge: CaptureCharge | undefined;
  try {
    url = targetOf({ url: sentUrl, html }, config.ALLOW_PRIVATE_NETWORK);
    // An html document is written into the page, never requested: nothing to block.
    if (html === undefined) checkDocumentNotBlocked(captureOptions.blockRequests, url);
    Object.assign(c.var.logFields, await targetLogFields(url));
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
    const take = { ...plan.take, signal: c.req.raw.signal };
    // A capture the cache already holds renders nothing, so it need not cost a turn.
    const held = charging === "renders-only" ? await screenshots.peek(job, take) : null;
    // After validation, so refused requests do not use up the client's quota.
    if (!held) charge = await enforceCaptureRateLimit(c);
    const attributes = {
      deviceType,
      colorScheme,
      forceRefresh: plan.take.forceRefresh,
      scale: captureOptions.scale ?? 1,
      fullPage: captureOptions.fullPage ?? false,
      format,
      // Whether the capture was private; never what it carried.
      credentials: credentials !== undefined,
    };
    outcome = await traced("capture", attributes, async (span) => {
      const taken = held ?? await screenshots.take(job, take);
      span.setAttributes({ cached: taken.cached, backend: taken.strategy });
      return taken;
    });
  } catch (error) {
    // Why a target was refused is the operator's to know, not the caller's.
    if (error instanceof ApiError) Object.assign(c.var.logFields, error.logDetail);
    // A capture the render queue would not take did no work: it costs the client nothing.
    if (refusedBeforeWork(error)) await charge?.refund();
    throw error;
  }
  const cache = outcome.cached ? "hit" : "miss";
  Object.assign(c.var.logFields, { cache, strategy: outcome.strategy });
  return { ...outcome, format, url, deviceType, colorScheme };
}
