import { createRoute, z } from "@hono/zod-openapi";
import { notFound, unauthorized } from "../lib/errors.ts";
import { sha256Hex } from "../lib/hash.ts";
import { matchesNoneMatch } from "../lib/http/byte_ranges.ts";
import { binaryContent, errorResponses } from "../lib/http/openapi_responses.ts";
import { RENDER_PATH, type RenderLinkRefusal, verifyRenderLink } from "../lib/http/render_links.ts";
import { createRouter } from "../lib/http/router.ts";
import { runCapture } from "./capture_run.ts";
import { renderQueryParameters, renderRequestOf } from "./render_query.ts";
import { type AnsweredCapture, rawMediaType, setCaptureHeaders } from "./screenshot_answer.ts";
import { SCREENSHOT_SUCCESS_HEADERS } from "./screenshot_schemas.ts";

const header = (description: string, example: string) =>
  z.string().openapi({ description, example });

const RenderHeaders = SCREENSHOT_SUCCESS_HEADERS.partial().extend({
  ETag: header("Names these bytes; send it back in If-None-Match for a 304.", '"9f86d08"'),
  "Cache-Control": header(
    "Public, for as long as the cached capture stays fresh (never past the link's expiry).",
    "public, max-age=172000",
  ),
  "Cross-Origin-Resource-Policy": header("Embeddable from any site.", "cross-origin"),
});

const renderRoute = createRoute({
  method: "get",
  path: RENDER_PATH,
  operationId: "renderLink",
  tags: ["Capture"],
  summary: "Answer the image of a signed render link, for <img src>",
  description: "A GET link whose query carries the fields of POST /api/screenshot's body (one " +
    "parameter per top-level field: strings as they are, numbers, booleans, arrays and objects " +
    "as their JSON text), `expires` and a `signature` made with the service's " +
    "RENDER_LINK_SECRET, answered with the image itself so a page can embed a live capture. " +
    "Exists only where RENDER_LINK_SECRET is set. Only png, jpeg and webp; no cookies, headers " +
    "or forceRefresh (a link is shareable, and must not bypass the cache). Goes through the " +
    "same cache, single flight and render queue as POST /api/screenshot. A capture the cache " +
    "holds is answered without counting against the per-IP limit; one that must be rendered " +
    "counts. ETag and If-None-Match (304) are answered, and Cache-Control lets browsers and " +
    "CDNs keep the image while its cached capture is fresh.",
  parameters: renderQueryParameters(),
  responses: {
    200: {
      description: "The capture's image.",
      headers: RenderHeaders,
      content: binaryContent("image/png", "image/jpeg", "image/webp"),
    },
    304: {
      description: "Not modified: the ETag in If-None-Match is current.",
      headers: RenderHeaders.pick({ ETag: true, "Cache-Control": true }),
    },
    ...errorResponses({
      400: {
        when: "A field the capture request refuses (the same checks as POST /api/screenshot's " +
          "body), a field links may not carry (cookies, headers, forceRefresh, maxAge 0), an " +
          "unknown or repeated field, JSON text that is not JSON, or a format other than png, " +
          "jpeg or webp.",
        codes: ["invalid_request", "invalid_url", "unsupported_value"],
      },
      403: {
        when: "The signature is missing or does not match the query (a changed, added or " +
          "removed parameter, another secret), or the link has expired.",
        codes: ["unauthorized"],
      },
      408: {
        when: "The page did not load, or waitForSelector did not match, within the budget.",
        codes: ["upstream_timeout"],
      },
      429: { when: "Per-IP limit exceeded by renders.", codes: ["rate_limited"] },
      500: { when: "The page could not be loaded or captured.", codes: ["upstream_failed"] },
      502: {
        when: "failOnHttpError is true and the page answered with a 4xx or 5xx status.",
        codes: ["upstream_failed"],
      },
      503: {
        when: "No capture backend can run, the capture queue is full (see Retry-After; not " +
          "counted against the per-IP limit), or blockAds or hideAnnoyances was asked for " +
          "while its filter lists are not loaded.",
        codes: ["upstream_unavailable"],
      },
    }),
  },
});

/** What each refusal tells the caller; the operator's log names the refusal itself. */
const REFUSALS: Record<RenderLinkRefusal, string> = {
  unsigned: "The render link has no signature.",
  bad_signature: "The render link's signature does not match its parameters.",
  no_expiry: "The render link has no valid expires parameter.",
  expired: "The render link has expired.",
};

/**
 * Seconds a browser or CDN may keep the image: while its cached capture stays fresh (the cache
 * lifetime, or the link's maxAge, minus its age), and never past the link's own expiry.
 */
function freshForSeconds(
  capture: AnsweredCapture,
  limits: { cacheTtlSeconds: number; maxAge?: number; linkExpiresAt: number; now: number },
): number {
  if (capture.stale) return 0;
  const lifetime = Math.min(limits.cacheTtlSeconds, limits.maxAge ?? Infinity);
  const linkLeft = Math.floor((limits.linkExpiresAt - limits.now) / 1000);
  return Math.max(0, Math.min(lifetime - capture.age, linkLeft));
}

/** GET /api/render: the image of a signed link (mounted only with RENDER_LINK_SECRET). */
export function createRenderRouter() {
  return createRouter().openapi(renderRoute, async (c) => {
    const { clock, config } = c.var.deps;
    const secret = config.RENDER_LINK_SECRET;
    // Mounted only when the secret is set (see createApp); checked again so a mistake fails closed.
    if (!secret) throw notFound(`No route for ${c.req.method} ${c.req.path}.`);
    // Verified before anything is read from it: an unsigned query learns nothing more.
    const verdict = await verifyRenderLink(new URL(c.req.url).searchParams, {
      secret,
      now: clock.now(),
    });
    if (!verdict.valid) {
      c.var.logFields.renderLink = verdict.refusal;
      throw unauthorized(REFUSALS[verdict.refusal], {
        status: 403,
        hint: "Use the link exactly as it was signed, before its expires time; ask its issuer " +
          "for a new one.",
      });
    }
    const request = renderRequestOf(verdict.fields);
    const capture = await runCapture(c, request, {
      format: request.format ?? "png",
      charging: "renders-only",
    });
    setCaptureHeaders(c, capture);
    const maxAge = freshForSeconds(capture, {
      cacheTtlSeconds: config.CACHE_TTL_SECONDS,
      maxAge: request.maxAge,
      linkExpiresAt: verdict.expiresAt,
      now: clock.now(),
    });
    // A strong ETag: the bytes' own hash, whichever render or instance produced them.
    const etag = `"${(await sha256Hex(capture.image as Uint8Array<ArrayBuffer>)).slice(0, 32)}"`;
    const caching = { ETag: etag, "Cache-Control": `public, max-age=${maxAge}` };
    // One URL, one image: nothing varies with Accept here.
    c.header("Vary", undefined);
    if (matchesNoneMatch(c.req.header("If-None-Match"), etag)) return c.body(null, 304, caching);
    return c.body(capture.image as Uint8Array<ArrayBuffer>, 200, {
      ...caching,
      "Content-Type": rawMediaType(capture.format),
      "X-Content-Type-Options": "nosniff",
      // An <img> on any site may show it, cross-origin-isolated pages included.
      "Cross-Origin-Resource-Policy": "cross-origin",
    });
  });
}
