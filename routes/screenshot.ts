import { createRoute, z } from "@hono/zod-openapi";
import { SCREENSHOT_BODY_LIMIT } from "../lib/capture/mod.ts";
import { errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter, mountMethodProbe, validatedInput } from "../lib/http/router.ts";
import {
  SCREENSHOT_SUCCESS_HEADERS,
  ScreenshotRequestSchema,
  ScreenshotResponseSchema,
} from "./screenshot_schemas.ts";
import { captureJson, chooseAnswer, rawMediaType, setCaptureHeaders } from "./screenshot_answer.ts";
import { placementHeader } from "./screenshot_frame.ts";
import { refuseCapture, runCapture } from "./capture_run.ts";

// The raw-bytes answer: what Accept: image/png, application/pdf, video/mp4 ... gets.
const rawBytes = (what: string) => ({
  schema: z.string().openapi({
    format: "binary",
    description: `The ${what} itself; the headers carry cache, size, target status, age and ` +
      "truncation.",
  }),
});
const rawText = (what: string) => ({
  schema: z.string().openapi({
    description: `The page's ${what} (UTF-8); the headers carry cache, target status and age.`,
  }),
});

const captureRoute = createRoute({
  method: "post",
  path: "/api/screenshot",
  operationId: "captureScreenshot",
  tags: ["Capture"],
  summary: "Capture a web page as an image, a PDF, a scrolling video, or Markdown",
  description: "Renders the page at `url` (or the `html` document sent) in a fresh browser " +
    "context and returns the image base64-encoded in JSON with the page's own metadata (title, " +
    "description, language, theme colour, favicon, og:image), or the image's bytes when Accept " +
    "asks for image/png, image/jpeg or image/webp (or image/*). `format` asks instead for a PDF " +
    "(`pages` says how many), a recording of the page scrolled from top to bottom as mp4, webm " +
    "or gif, or the page's readable content as Markdown or its rendered HTML (in `content`); " +
    "Accept: application/pdf, video/mp4, video/webm, image/gif, text/markdown or text/html " +
    "gets those bytes. Optional fields set the image format and quality, the viewport or a named device, take the whole page, a rectangle, a " +
    "sharper scale, one element, hide, remove or click elements, add CSS, drop the background, " +
    "hide ads and consent dialogs, emulate a user agent, locale, time zone, reduced motion, print " +
    "media or no JavaScript, keep resource types or URL patterns out, or wait for an element or " +
    "a delay. Captures are cached per normalised URL (or document hash), device type, colour " +
    "scheme and the options that differ from their defaults; `forceRefresh` renders anew and " +
    "replaces the entry, `maxAge` sets how old a cached capture may be (`age` says how old it " +
    "is). A capture with `cookies` or `headers` is never cached. Limited per client IP over a " +
    "sliding 60 s window: cache hits count; a request refused by validation (400) or by a full " +
    "capture queue (503, before any work) does not.",
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
      content: {
        "application/json": { schema: ScreenshotResponseSchema },
        "image/png": rawBytes("PNG image"),
        "image/jpeg": rawBytes("JPEG image"),
        "image/webp": rawBytes("WebP image"),
        "application/pdf": rawBytes("PDF"),
        "video/mp4": rawBytes("H.264 MP4 recording"),
        "video/webm": rawBytes("VP9 WebM recording"),
        "image/gif": rawBytes("GIF recording"),
        "text/markdown": rawText("readable content as Markdown"),
        "text/html": rawText("rendered DOM as HTML"),
      },
    },
    ...errorResponses({
      400: {
        when: "Malformed body, neither or both of url and html, a URL that may not be " +
          "captured, a bad option, two options that contradict each other (the message names " +
          "both), a recording past its frame or pixel budget, or an Accept naming only types " +
          "other than `format`.",
        codes: ["invalid_request", "invalid_url", "unsupported_value"],
      },
      405: { when: "Any method but POST.", codes: ["method_not_allowed"] },
      408: {
        when: "The page did not load, or waitForSelector did not match, within the budget.",
        codes: ["upstream_timeout"],
      },
      413: {
        when: `The JSON body is over ${SCREENSHOT_BODY_LIMIT} bytes (room for a 2 MB html).`,
        codes: ["invalid_request"],
      },
      429: { when: "Per-IP limit exceeded.", codes: ["rate_limited"] },
      500: { when: "The page could not be loaded or captured.", codes: ["upstream_failed"] },
      502: {
        when: "failOnHttpError is true and the page answered with a 4xx or 5xx status.",
        codes: ["upstream_failed"],
      },
      503: {
        when: "No capture backend can run, the capture queue is full (see Retry-After; such a " +
          "refusal does not count against the per-IP limit), blockAds or hideAnnoyances " +
          "was asked for while its filter lists are not loaded, or a recording was asked for " +
          "where the server has no ffmpeg with its encoder (the message names what is missing).",
        codes: ["upstream_unavailable"],
      },
    }),
  },
});

/** POST /api/screenshot (and its GET method probe), over the app's screenshot service. */
export function createScreenshotRouter() {
  const router = createRouter();

  router.openapi(
    captureRoute,
    async (c) => {
      const body = c.req.valid("json");
      // Before anything is rendered: an Accept the capture could not satisfy is the caller's.
      const answer = chooseAnswer(c.req.header("Accept"), body.format);
      const capture = await runCapture(c, body, {
        format: answer.format,
        charging: "every-request",
      });
      const size = setCaptureHeaders(c, capture);
      const { framed } = capture;
      if (framed) c.header("X-Frame-Image", placementHeader(framed.placement));
      if (answer.raw) {
        return c.body(capture.image as Uint8Array<ArrayBuffer>, 200, {
          "Content-Type": rawMediaType(answer.format),
        });
      }
      const json = captureJson(capture, size);
      return c.json(framed ? { ...json, frame: framed.placement } : json, 200);
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
