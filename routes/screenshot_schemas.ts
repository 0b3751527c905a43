import { z } from "@hono/zod-openapi";
import { COLOR_SCHEMES, DEVICE_TYPES } from "../lib/capture/types.ts";
import { RATE_LIMIT_HEADERS } from "../lib/http/openapi_responses.ts";

/** Body of POST /api/screenshot; its example feeds the curl line of /llms.txt. */
export const ScreenshotRequestSchema = z.object({
  url: z.string().openapi({
    format: "uri",
    description: "Absolute http or https URL of a public page. Normalised (see `url` of the " +
      "response) before it is captured and used as the cache key.",
    example: "https://example.com",
  }),
  deviceType: z.enum(DEVICE_TYPES).default("desktop").openapi({
    description: "desktop = 1920x1080 viewport; mobile = 375x667 with mobile emulation.",
    example: "desktop",
  }),
  colorScheme: z.enum(COLOR_SCHEMES).default("light").openapi({
    description: "Sent to the page as prefers-color-scheme.",
    example: "light",
  }),
  forceRefresh: z.boolean().default(false).openapi({
    description: "true bypasses the cached capture and replaces it with a new render.",
    example: false,
  }),
}).openapi("ScreenshotRequest", {
  example: { url: "https://example.com", deviceType: "desktop", colorScheme: "light" },
});

/** Body of a successful capture. */
export const ScreenshotResponseSchema = z.object({
  screenshot: z.string().openapi({
    description: "The PNG, base64-encoded, without a data-URI prefix; exactly the viewport size.",
    example: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4" +
      "AAAAAElFTkSuQmCC",
  }),
  url: z.string().openapi({
    format: "uri",
    description: "The normalised URL that was captured: scheme and host lowercased, default " +
      "port and fragment dropped, path and query kept.",
    example: "https://example.com/",
  }),
  cached: z.boolean().openapi({ description: "true when served from the cache.", example: false }),
  strategy: z.string().optional().openapi({
    description: "The capture backend that produced the image (also on a cache hit).",
    example: "chromium-local",
  }),
  deviceType: z.enum(DEVICE_TYPES).optional().openapi({ example: "desktop" }),
  colorScheme: z.enum(COLOR_SCHEMES).optional().openapi({ example: "light" }),
}).openapi("ScreenshotResponse");

/** Headers of a successful capture: cache, target status and the rate-limit state. */
export const SCREENSHOT_SUCCESS_HEADERS = RATE_LIMIT_HEADERS.omit({ "Retry-After": true }).extend({
  "X-Cache": z.enum(["hit", "miss"]).openapi({ description: "Whether the cache answered." }),
  "X-Target-Status": z.string().optional().openapi({
    description: "HTTP status of the captured page's main document, when known. A page that " +
      "answers with an error status is still captured as a browser shows it.",
    example: "200",
  }),
  "RateLimit-Policy": z.string().openapi({
    description: "IETF RateLimit-Policy: quota q per window w seconds.",
    example: '"per-ip";q=20;w=60',
  }),
  "RateLimit": z.string().openapi({
    description: "IETF RateLimit: r requests remaining, t seconds until the window resets.",
    example: '"per-ip";r=19;t=60',
  }),
});
