import { createRoute, z } from "@hono/zod-openapi";
import {
  type ApiError,
  forbiddenDomain,
  invalidUrl,
  upstreamFailed,
  upstreamTimeout,
} from "../lib/errors.ts";
import { parseMediaUrl } from "../lib/media/allowlist.ts";
import { MediaFailure } from "../lib/media/failure.ts";
import { MAX_REDIRECTS, proxyMedia } from "../lib/media/proxy.ts";
import { MEDIA_HOSTS, mediaHostList } from "../lib/upstreams.ts";
import { binaryContent, errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter } from "../lib/http/router.ts";
import { traced, tracedBody } from "../lib/telemetry/trace.ts";

const QuerySchema = z.object({
  url: z.string().min(1, "must not be empty").openapi({
    param: { name: "url", in: "query" },
    format: "uri",
    description: `Absolute https URL of a media file on ${mediaHostList("or")} (URL-encoded).`,
    example: "https://pbs.twimg.com/media/FpZ3Xz0aYAE0nFv.jpg",
  }),
});

const mediaContent = binaryContent("image/*", "video/*", "audio/*");

const header = (description: string, example: string) =>
  z.string().optional().openapi({ description, example });

const MediaHeaders = z.object({
  "Content-Type": z.string().openapi({ example: "image/jpeg" }),
  "Content-Length": header("Passed on from the media host when it sent one.", "48213"),
  "Content-Range": header("On 206 answers.", "bytes 0-1023/48213"),
  "Accept-Ranges": header("Passed on from the media host.", "bytes"),
  ETag: header("Passed on from the media host.", '"3f2a"'),
  "Last-Modified": header("Passed on from the media host.", "Tue, 02 Jan 2024 10:00:00 GMT"),
  "Cache-Control": z.string().openapi({ example: "public, max-age=86400, immutable" }),
  "Access-Control-Allow-Origin": z.string().openapi({ example: "*" }),
  "Cross-Origin-Resource-Policy": z.string().openapi({ example: "cross-origin" }),
  "X-Content-Type-Options": z.string().openapi({ example: "nosniff" }),
  "Content-Security-Policy": z.string().openapi({ example: "default-src 'none'; sandbox" }),
});

const proxyRoute = createRoute({
  method: "get",
  path: "/api/image-proxy",
  operationId: "proxySocialImage",
  tags: ["Posts"],
  summary: "Stream a social-network media file through this origin",
  description: "Streams an image, video or audio file from one of the allowlisted media hosts " +
    `(${MEDIA_HOSTS.join(", ")}) through the service's origin with CORS headers, so a ` +
    "canvas that draws it is not tainted. https only, exact host match, no userinfo or port. " +
    "Range and conditional requests (If-None-Match, If-Modified-Since) are forwarded; HEAD is " +
    "answered. SVG, HTML, scripts and untyped bodies are refused. Redirects are followed (at " +
    `most ${MAX_REDIRECTS}) only within the same hosts.`,
  request: { query: QuerySchema },
  responses: {
    200: { description: "The media file.", headers: MediaHeaders, content: mediaContent },
    206: {
      description: "Part of the media file, for a Range request.",
      headers: MediaHeaders,
      content: mediaContent,
    },
    304: {
      description: "Not modified, for a conditional request.",
      headers: MediaHeaders.omit({ "Content-Type": true, "Content-Range": true }),
    },
    ...errorResponses({
      400: {
        when: "url is missing, or is not a valid absolute URL.",
        codes: ["invalid_request", "invalid_url"],
      },
      403: {
        when: "The URL is not https on one of the allowlisted media hosts.",
        codes: ["forbidden_domain"],
      },
      500: {
        when: "The media host could not be reached or did not answer in time.",
        codes: ["upstream_failed", "upstream_timeout"],
      },
      502: {
        when: "The media host refused (4xx/5xx, the hint names its status), redirected " +
          "elsewhere, or sent a type or size the proxy does not serve.",
        codes: ["upstream_failed"],
      },
    }),
  },
});

/** The answer for each way the media proxy refuses or fails (lib/media/failure.ts). */
function mediaFailureError({ detail }: MediaFailure): ApiError {
  switch (detail.kind) {
    case "invalid_url":
      return invalidUrl("url is not a valid absolute URL.", {
        hint: "Send an absolute https URL of a media file, e.g. " +
          "https://pbs.twimg.com/media/example.jpg (URL-encode it in the query string).",
      });
    case "forbidden_host":
      return forbiddenDomain("This URL may not be proxied.");
    case "timeout":
      return upstreamTimeout("The media host did not answer in time.", {
        status: 500,
        hint: `No response within ${detail.ms} ms; retry later.`,
      });
    case "unreachable":
      return upstreamFailed("The media file could not be fetched.", {
        hint: "The media host could not be reached; retry later.",
      });
    case "refused":
      return upstreamFailed("The media host refused the request.", {
        status: 502,
        hint: detail.reason,
      });
  }
}

/** `error` as the API's answer when it is a MediaFailure; anything else as it is. */
function answered(error: unknown): unknown {
  return error instanceof MediaFailure ? mediaFailureError(error) : error;
}

/** GET (and HEAD) /api/image-proxy: the allowlisted media proxy. */
export function createImageProxyRouter() {
  const router = createRouter();
  router.use(proxyRoute.path, async (c, next) => {
    await next();
    // Errors too, so a cross-origin editor can read why a media file was refused.
    if (!c.res.headers.has("Access-Control-Allow-Origin")) {
      c.res.headers.set("Access-Control-Allow-Origin", "*");
    }
  });
  return router.openapi(proxyRoute, async (c) => {
    let target: ReturnType<typeof parseMediaUrl>;
    try {
      target = parseMediaUrl(c.req.valid("query").url);
    } catch (error) {
      throw answered(error);
    }
    const { url, host } = target;
    c.var.logFields.mediaHost = host;
    const { fetch, upstreams, log } = c.var.deps;
    // Deno.serve's handler info (Hono's env on Deno); absent for in-process requests.
    const completed = (c.env as Partial<Deno.ServeHandlerInfo> | undefined)?.completed;
    // The host only: the media URL's path and query stay out of traces.
    const response = await traced("media.proxy", { "media.host": host }, async (span) => {
      const answer = await proxyMedia({ fetch, upstreams, log }, {
        url,
        host,
        // Hono runs GET handlers for HEAD; c.req.method still says which one the client sent.
        method: c.req.method === "HEAD" ? "HEAD" : "GET",
        headers: c.req.raw.headers,
        signal: c.req.raw.signal,
        completed,
        logFields: c.var.logFields,
      }).catch((error) => {
        // Mapped inside the span, so the span's outcome is the answer's code.
        throw answered(error);
      });
      span.setAttribute("status", answer.status);
      return answer;
    });
    return tracedBody(response, "media.proxy_stream", { "media.host": host }, completed);
  });
}
