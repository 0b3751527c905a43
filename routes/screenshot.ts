import { createRoute, z } from "@hono/zod-openapi";
import { Buffer } from "node:buffer";
import {
  hasOptions,
  parseTargetUrl,
  planCapture,
  requireAnnoyances,
  requireEngine,
  targetLogFields,
} from "../lib/capture/mod.ts";
import { readImageInfo } from "../lib/codecs/image_info.ts";
import { ApiError, invalidUrl } from "../lib/errors.ts";
import { errorResponses } from "../lib/http/openapi_responses.ts";
import { enforceCaptureRateLimit } from "../lib/http/rate_limit.ts";
import {
  createRouter,
  mountMethodProbe,
  validatedInput,
  validationError,
} from "../lib/http/router.ts";
import {
  SCREENSHOT_SUCCESS_HEADERS,
  ScreenshotRequestSchema,
  ScreenshotResponseSchema,
} from "./screenshot_schemas.ts";
import { traced } from "../lib/telemetry/trace.ts";

const captureRoute = createRoute({
  method: "post",
  path: "/api/screenshot",
  operationId: "captureScreenshot",
  tags: ["Capture"],
  summary: "Capture a web page as a PNG",
  description: "Renders the page in a fresh browser context and returns the PNG base64-encoded. " +
    "Optional fields set the viewport or a named device, take the whole page, a sharper " +
    "scale, one element, hide, remove or click elements, add CSS, drop the background, hide ads " +
    "and consent dialogs, or wait for an element or a delay. Captures are cached per " +
    "normalised URL, device type, colour scheme and the options that differ from their " +
    "defaults; `forceRefresh` renders anew and replaces the entry, `maxAge` sets how old a " +
    "cached capture may be (`age` says how old it is). A capture with `cookies` or `headers` " +
    "is never cached. Limited per client IP over a sliding 60 s window " +
    "(cache hits count).",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: ScreenshotRequestSchema } },
    },
  },
  responses: {
    200: {
      description: "The capture.",
      headers: SCREENSHOT_SUCCESS_HEADERS,
      content: { "application/json": { schema: ScreenshotResponseSchema } },
    },
    ...errorResponses({
      400: {
        when: "Malformed body, missing url, a URL that may not be captured, or a bad option.",
        codes: ["invalid_request", "invalid_url", "unsupported_value"],
      },
      405: { when: "Any method but POST.", codes: ["method_not_allowed"] },
      408: {
        when: "The page did not load, or waitForSelector did not match, within the budget.",
        codes: ["upstream_timeout"],
      },
      413: { when: "The JSON body is over 64 KiB.", codes: ["invalid_request"] },
      429: { when: "Per-IP limit exceeded.", codes: ["rate_limited"] },
      500: { when: "The page could not be loaded or captured.", codes: ["upstream_failed"] },
      502: {
        when: "failOnHttpError is true and the page answered with a 4xx or 5xx status.",
        codes: ["upstream_failed"],
      },
      503: {
        when: "No capture backend can run, the capture queue is full (see Retry-After), or " +
          "blockAds or hideAnnoyances was asked for while its filter lists are not loaded.",
        codes: ["upstream_unavailable"],
      },
    }),
  },
});

// A url of the wrong type is a bad URL, not a missing one.
function refuseCapture(issues: z.core.$ZodIssue[], input: unknown): never {
  const issue = issues[0];
  const sentUrl = (input as { url?: unknown } | null)?.url;
  if (issue?.path[0] === "url" && issue.code === "invalid_type" && sentUrl !== undefined) {
    throw invalidUrl("url must be a string holding an absolute URL.", {
      hint: 'Send url as a JSON string, e.g. "https://example.com".',
    });
  }
  throw validationError(issues, input);
}

/** POST /api/screenshot (and its GET method probe), over the app's screenshot service. */
export function createScreenshotRouter() {
  const router = createRouter();

  router.openapi(
    captureRoute,
    async (c) => {
      const { config, screenshots, adFilters } = c.var.deps;
      const body = c.req.valid("json");
      const { url: sentUrl, ...fields } = body;
      const plan = planCapture(fields, { cacheTtlSeconds: config.CACHE_TTL_SECONDS });
      const { deviceType, colorScheme, options, credentials } = plan;
      let outcome;
      let url: string;
      try {
        url = parseTargetUrl(sentUrl, { allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK });
        Object.assign(c.var.logFields, await targetLogFields(url));
        // Before the quota: a capture that cannot block ads would only waste the client's turn.
        if (body.blockAds) requireEngine(adFilters);
        if (body.hideAnnoyances) requireAnnoyances(adFilters);
        // After validation, so refused requests do not use up the client's quota.
        await enforceCaptureRateLimit(c);
        const job = {
          url,
          deviceType,
          colorScheme,
          ...(hasOptions(options) ? { options } : {}),
          ...(credentials ? { credentials } : {}),
        };
        const attributes = {
          deviceType,
          colorScheme,
          forceRefresh: plan.take.forceRefresh,
          scale: options.scale ?? 1,
          fullPage: options.fullPage ?? false,
          // Whether the capture was private; never what it carried.
          credentials: credentials !== undefined,
        };
        outcome = await traced("capture", attributes, async (span) => {
          const taken = await screenshots.take(job, { ...plan.take, signal: c.req.raw.signal });
          span.setAttributes({ cached: taken.cached, backend: taken.strategy });
          return taken;
        });
      } catch (error) {
        // Why a target was refused is the operator's to know, not the caller's.
        if (error instanceof ApiError) Object.assign(c.var.logFields, error.logDetail);
        throw error;
      }
      const cache = outcome.cached ? "hit" : "miss";
      Object.assign(c.var.logFields, { cache, strategy: outcome.strategy });
      c.header("X-Cache", cache);
      if (outcome.targetStatus !== null) c.header("X-Target-Status", String(outcome.targetStatus));
      c.header("Cache-Control", "no-store");
      const { width, height } = readImageInfo("png", outcome.png) ?? { width: 0, height: 0 };
      return c.json({
        screenshot: Buffer.from(outcome.png.buffer, outcome.png.byteOffset, outcome.png.byteLength)
          .toString("base64"),
        url,
        cached: outcome.cached,
        age: outcome.age,
        ...(outcome.stale ? { stale: true as const } : {}),
        strategy: outcome.strategy,
        deviceType,
        colorScheme,
        width,
        height,
        ...(outcome.targetStatus !== null ? { httpStatus: outcome.targetStatus } : {}),
        ...(outcome.truncated ? { truncated: true as const } : {}),
      }, 200);
    },
    (result) =>
      result.success ? undefined : refuseCapture(result.error.issues, validatedInput(result)),
  );

  mountMethodProbe(router, {
    path: "/api/screenshot",
    operationId: "captureScreenshotMethodProbe",
    tag: "Capture",
  });
  return router;
}
