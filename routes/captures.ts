import { createRoute, z } from "@hono/zod-openapi";
import { invalidRequest, notFound, upstreamUnavailable } from "../lib/errors.ts";
import { matchesNoneMatch, rangeOf } from "../lib/http/byte_ranges.ts";
import { binaryContent, errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter } from "../lib/http/router.ts";
import { textHash } from "../lib/hash.ts";
import { METRICS } from "../lib/telemetry/metrics.ts";
import type { KeptCapture } from "../lib/capture/links.ts";

const PATH = "/api/captures/{id}";

const ParamsSchema = z.object({
  // Any text: an id that is not one of ours is simply unknown (404), not a malformed request.
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    description: "The link's id, as an MCP tool answer's resource_link gave it.",
    example: "q3Xv9mB2kP0sLr8TnW4yZa1c",
  }),
});

const captureContent = binaryContent("image/*", "application/pdf", "video/*", "text/*");

const header = (description: string, example: string) =>
  z.string().openapi({ description, example });

const CaptureHeaders = z.object({
  "Content-Type": header("The capture's media type.", "image/png"),
  "Content-Length": header("Bytes in this answer.", "48213"),
  "Content-Range": header("On 206 answers.", "bytes 0-1023/48213").optional(),
  "Accept-Ranges": header("Single byte ranges are served.", "bytes"),
  ETag: header("Names these bytes; send it back in If-None-Match or If-Range.", '"9f86d08"'),
  "Cache-Control": header("Private, until the link expires.", "private, max-age=3412"),
  "Content-Disposition": header("Shown inline, under the capture's file name.", "inline"),
  "X-Content-Type-Options": header("Never sniffed.", "nosniff"),
  "Referrer-Policy": header("The link never leaks as a Referer.", "no-referrer"),
});

const getKeptCaptureRoute = createRoute({
  method: "get",
  path: PATH,
  operationId: "getKeptCapture",
  tags: ["Capture"],
  summary: "Fetch the exact bytes of a capture an MCP tool answered",
  description: "An MCP tool that captures answers with a resource_link to " +
    "the full capture: this URL, or the resource shotline://captures/{id} for resources/read. " +
    "It serves those exact bytes (image, PDF, recording or text) for CAPTURE_LINK_TTL_SECONDS " +
    "after the tool answered (an hour by default), then 404. No credentials: the id is the " +
    "secret, so share the link only with whom may see the capture. Nothing is rendered, so it " +
    "is not counted against the per-IP capture limit. HEAD, If-None-Match (304) and single " +
    "byte ranges (206; 416 past the end) are answered, for players and PDF viewers.",
  request: { params: ParamsSchema },
  responses: {
    200: { description: "The capture's bytes.", headers: CaptureHeaders, content: captureContent },
    206: {
      description: "Part of the capture's bytes, for a Range request.",
      headers: CaptureHeaders,
      content: captureContent,
    },
    304: {
      description: "Not modified: the ETag in If-None-Match is current.",
      headers: CaptureHeaders.pick({ ETag: true, "Cache-Control": true }),
    },
    ...errorResponses({
      404: {
        when: "No capture under this id: it expired, never existed, or is malformed.",
        codes: ["not_found"],
      },
      416: {
        when: "The Range starts past the end of the capture (Content-Range names its size).",
        codes: ["invalid_request"],
      },
      503: { when: "The store did not answer; retry shortly.", codes: ["upstream_unavailable"] },
    }),
  },
});

/** A strong ETag: an id's bytes never change, so its hash names them (and does not reveal it). */
function etagOf(id: string): string {
  return `"${textHash(id).slice(0, 32)}"`;
}

/** `name` in a Content-Disposition value: an ASCII fallback, plus the UTF-8 name if it differs. */
function dispositionOf(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_");
  const utf8 = ascii === name ? "" : `; filename*=UTF-8''${encodeURIComponent(name)}`;
  return `inline; filename="${ascii}"${utf8}`;
}

/**
 * The headers every answer of a found capture carries. Text captures hold a page's own HTML or
 * Markdown, served from our origin: sandboxed with no sources, so no script of theirs runs here.
 */
function captureHeaders(kept: KeptCapture, etag: string, now: number): Record<string, string> {
  const secondsLeft = Math.max(0, Math.floor((kept.expiresAt - now) / 1000));
  const headers: Record<string, string> = {
    "Content-Type": kept.mediaType,
    "Accept-Ranges": "bytes",
    ETag: etag,
    "Cache-Control": `private, max-age=${secondsLeft}`,
    "Content-Disposition": dispositionOf(kept.name),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
  // Chrome refuses to show a PDF under a sandbox policy; PDF scripts cannot reach our origin.
  if (kept.mediaType !== "application/pdf") {
    headers["Content-Security-Policy"] = "default-src 'none'; sandbox";
  }
  return headers;
}

/** GET (and HEAD) /api/captures/{id}: the exact bytes behind a capture link. */
export function createCapturesRouter() {
  const router = createRouter();
  // The id is a bearer secret: the access log names the route, never the link.
  router.use(PATH.replace("{id}", ":id"), async (c, next) => {
    c.var.logFields.path = "/api/captures/:id";
    await next();
  });
  return router.openapi(getKeptCaptureRoute, async (c) => {
    const { captureLinks, clock, config, log } = c.var.deps;
    const { id } = c.req.valid("param");
    let kept: KeptCapture | null;
    try {
      kept = await captureLinks.read(id);
    } catch (error) {
      log.warn("capture link read failed", { requestId: c.var.requestId, error });
      throw upstreamUnavailable("The capture could not be read from the store.", {
        hint: "Retry in a few seconds.",
      });
    }
    if (!kept) {
      throw notFound("No capture under this link.", {
        hint: `A capture link works for ${config.CAPTURE_LINK_TTL_SECONDS} s after the tool ` +
          "answered; a new capture makes a new link.",
      });
    }
    const etag = etagOf(id);
    const headers = captureHeaders(kept, etag, clock.now());
    if (matchesNoneMatch(c.req.header("If-None-Match"), etag)) {
      return c.body(null, 304, { ETag: etag, "Cache-Control": headers["Cache-Control"] });
    }
    const size = kept.bytes.byteLength;
    const range = rangeOf(
      { range: c.req.header("Range"), ifRange: c.req.header("If-Range") },
      size,
      etag,
    );
    if (range.kind === "unsatisfiable") {
      throw invalidRequest("The requested range is past the end of the capture.", {
        status: 416,
        hint: `Ask for bytes within 0-${Math.max(0, size - 1)}; the capture is ${size} bytes.`,
        headers: { "Content-Range": `bytes */${size}` },
      });
    }
    const [status, body] = range.kind === "partial"
      ? [206 as const, kept.bytes.subarray(range.start, range.end + 1)]
      : [200 as const, kept.bytes];
    if (range.kind === "partial") {
      headers["Content-Range"] = `bytes ${range.start}-${range.end}/${size}`;
    }
    headers["Content-Length"] = String(body.byteLength);
    c.var.logFields.bytes = body.byteLength;
    // Hono runs GET handlers for HEAD and drops the body: only a GET sends bytes.
    if (c.req.method === "GET") METRICS.captureLinkBytes.inc(body.byteLength);
    return c.body(body as Uint8Array<ArrayBuffer>, status, headers);
  });
}
