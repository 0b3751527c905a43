import { z } from "@hono/zod-openapi";
import {
  MAX_CAPTURE_HEIGHT,
  MAX_CAPTURE_PIXELS,
  MAX_DELAY_MS,
  MAX_HIDE_SELECTORS,
  MAX_SELECTOR_LENGTH,
  SCALES,
} from "../lib/capture/request/options.ts";
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
  fullPage: z.boolean().default(false).openapi({
    description: "true captures the whole scrollable page, not just the viewport. Settled " +
      "(the default), the viewport is grown to the page so every scroll reveal and lazy image " +
      "is in view at once (reveals that hide again out of view included), viewport-tall " +
      "sections keep the real viewport's height and a fixed header appears once, at the top; " +
      "with `settle: false` the page is scrolled through instead. A page " +
      `taller than ${MAX_CAPTURE_HEIGHT} CSS px, or than ${MAX_CAPTURE_PIXELS} image pixels ` +
      "in all (1920x16384), is cut there and the response says `truncated: true`.",
    example: false,
  }),
  scale: z.number().pipe(z.literal(SCALES)).default(1).openapi({
    type: "integer",
    enum: [...SCALES],
    default: 1,
    description: "Device pixel ratio: desktop at 2 is 3840x2160, mobile at 3 is 1125x2001.",
    example: 1,
  }),
  selector: z.string().min(1).max(MAX_SELECTOR_LENGTH).optional().openapi({
    description: "CSS selector: capture only the first matching element's box (at `scale`). " +
      "No match once the page is ready, or not valid CSS: 400 `invalid_request`.",
    example: "main",
  }),
  hideSelectors: z.array(z.string().min(1).max(MAX_SELECTOR_LENGTH)).max(MAX_HIDE_SELECTORS)
    .default([]).openapi({
      description: `Up to ${MAX_HIDE_SELECTORS} CSS selectors of elements made invisible ` +
        "(visibility: hidden) before the shot.",
      example: [".chat-widget"],
    }),
  blockAds: z.boolean().default(false).openapi({
    description: "true blocks ad and tracker requests and hides ad slots, with EasyList-syntax " +
      "filter lists. 503 `upstream_unavailable` while the service has no list loaded.",
    example: false,
  }),
  hideCookieBanners: z.boolean().default(false).openapi({
    description: "true answers consent dialogs with reject where the platform allows it " +
      "(DuckDuckGo autoconsent rules: OneTrust, Cookiebot, Didomi, Quantcast, TrustArc, " +
      "Usercentrics and many more) and hides any that remain.",
    example: false,
  }),
  waitForSelector: z.string().min(1).max(MAX_SELECTOR_LENGTH).optional().openapi({
    description: "CSS selector: after load, wait until it matches a visible element. Not " +
      "within the capture budget: 408 `upstream_timeout`.",
    example: "#chart.ready",
  }),
  delayMs: z.int().min(0).max(MAX_DELAY_MS).default(0).openapi({
    description: "Wait this long after the page is ready, before the shot; it ends at the " +
      "capture budget at the latest.",
    example: 0,
  }),
  settle: z.boolean().default(true).openapi({
    description: "true (the default) shoots the page as a person sees it once it stopped " +
      "moving: the page's timers and animation frames are fast-forwarded (Chromium virtual " +
      "time, up to 5 s of page time in a few milliseconds), finite CSS animations, transitions " +
      "and Web Animations are brought to their end, infinite ones (spinners, marquees) rest " +
      "at their un-animated frame, and late images, web fonts and fetched data are awaited " +
      "(at most 1.5 s more, within the capture budget). A shot that comes out one flat colour " +
      "while the page has content is taken once more after a second, short settle. A page " +
      "that keeps animating or polling is shot as it is at the end of those bounds, not " +
      "answered with 408. A static page skips all of it. false shoots the first frame after " +
      "load, as before: entrance animations mid-way, scroll reveals below the first screen " +
      "hidden; it is cached apart from settled captures.",
    example: true,
  }),
}).openapi("ScreenshotRequest", {
  example: { url: "https://example.com", deviceType: "desktop", colorScheme: "light" },
});

/** Body of a successful capture. */
export const ScreenshotResponseSchema = z.object({
  screenshot: z.string().openapi({
    description: "The PNG, base64-encoded, without a data-URI prefix: the viewport at `scale` " +
      "unless fullPage or selector asked for more or less.",
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
  width: z.int().openapi({ description: "Width of the PNG in pixels.", example: 1920 }),
  height: z.int().openapi({ description: "Height of the PNG in pixels.", example: 1080 }),
  truncated: z.literal(true).optional().openapi({
    description: "Present when a full page or element was taller than the cap and was cut.",
    example: true,
  }),
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
