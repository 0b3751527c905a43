/** The capture report of a screenshot's JSON answer (lib/capture/report.ts), as the API says it. */
import { z } from "@hono/zod-openapi";
import {
  BLOCK_REASONS,
  FINDING_KINDS,
  REPORT_FIRST_ENTRIES,
  REPORT_TEXT_CHARS,
  REPORT_URL_CHARS,
  WAIT_NAMES,
} from "../lib/capture/mod.ts";

const ms = (description: string, example: number) =>
  z.int().min(0).openapi({ description: `${description}, in whole ms.`, example });

export const FindingSchema = z.object({
  kind: z.enum(FINDING_KINDS).openapi({
    description: "bot_challenge: a bot check or CAPTCHA page instead of the page. " +
      "consent_wall: a consent dialog covering most of the viewport or locking its scrolling " +
      "(a small banner is not one). login_wall: a sign-in form instead of the content, an " +
      "overlay asking to sign in, or a redirect to a sign-in path. blank: almost no visible " +
      "text and no picture. error_page: the target answered 400 or more, or the page calls " +
      "itself a not-found or server error page. truncated: the capture was cut (`truncated`).",
    example: "consent_wall",
  }),
  hint: z.string().openapi({
    description: "What to try instead, naming the request's options.",
    example: "A consent dialog covers the page: retry with hideCookieBanners: true (or " +
      "hideSelectors naming it).",
  }),
  evidence: z.string().optional().openapi({
    description: "The signal that decided it, short.",
    example: "onetrust over 100% of the viewport, scrolling locked",
  }),
}).openapi("CaptureFinding", {
  description: "Something that looks wrong with the capture, judged once the page settled " +
    "from what was visible at the shot (what hideCookieBanners, hideSelectors and the like " +
    "removed is not reported).",
});

export const CaptureReportSchema = z.object({
  timings: z.object({
    navigation: ms("From the start of the render to the page's DOMContentLoaded", 420),
    settle: ms(
      "Waiting for load, waitForSelector and network quiet, the options' steps and the " +
        "settle",
      610,
    ),
    shot: ms("Shooting, printing, recording or reading the page", 95),
    encode: ms("The service's own re-encode (a joined full page as jpeg or webp); 0 when none", 0),
    total: ms("The render, encode included (not the queue or the cache)", 1125),
  }).openapi({ description: "How long the render's steps took." }),
  target: z.object({
    status: z.int().nullable().openapi({
      description: "The main document's status after redirects; null for an `html` capture.",
      example: 200,
    }),
    finalUrl: z.string().openapi({
      description: "The page's URL at the shot, after redirects (about:blank for `html`).",
      example: "https://example.com/",
    }),
  }),
  console: z.object({
    errors: z.int().openapi({ description: "console.error calls of the page.", example: 1 }),
    exceptions: z.int().openapi({ description: "Uncaught exceptions of the page.", example: 0 }),
    first: z.array(z.object({
      kind: z.enum(["error", "exception"]),
      text: z.string().openapi({ description: `Cut at ${REPORT_TEXT_CHARS} characters.` }),
    })).openapi({ description: `The first ${REPORT_FIRST_ENTRIES}, in order.` }),
  }),
  requests: z.object({
    failed: z.int().openapi({
      description: "The page's requests that failed (a network error, or an answer of 400 or " +
        "more to a subresource); the main document and the browser's favicon are not counted.",
      example: 2,
    }),
    blocked: z.int().openapi({
      description: "Requests the service dropped: " +
        BLOCK_REASONS.map((reason) => `\`${reason}\``).join(", ") + " (blockAds, " +
        "blockResources, blockRequests, and the network boundary refusing a destination).",
      example: 3,
    }),
    byReason: z.record(z.string(), z.int()).openapi({
      description: "Both counted by reason: a net error (net::ERR_CONNECTION_REFUSED), " +
        "http_<status>, or who blocked it.",
      example: { "net::ERR_CONNECTION_REFUSED": 1, http_404: 1, ads: 3 },
    }),
    first: z.array(z.object({
      url: z.string().openapi({ description: `Cut at ${REPORT_URL_CHARS} characters.` }),
      reason: z.string(),
    })).openapi({ description: `The first ${REPORT_FIRST_ENTRIES}, failed or blocked.` }),
  }),
  waits: z.array(z.enum(WAIT_NAMES)).openapi({
    description: "The waits that ran out and were cut short: load (the load event, the " +
      "viewport's images and web fonts), network_quiet, settle (what changes the picture " +
      "still loading when the settle moved on). waitForSelector never runs out here: past the " +
      "budget the capture fails (408).",
    example: ["network_quiet"],
  }),
  findings: z.array(FindingSchema).openapi({
    description: "What looks wrong with the capture; empty when nothing does.",
  }),
}).openapi("CaptureReport", {
  description: "What the render saw besides the picture, and what looks wrong with it; kept " +
    "with the cached capture (a cached answer gives its render's report; one cached before " +
    "reports existed has none).",
});
